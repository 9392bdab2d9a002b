export * from './ciba.ts';
export * from './device.ts';
export * from './admin.ts';
export { bindingMessage, displayLines, displayName, displayText, identifier, revealUnseen, toDisplayText } from './text.ts';
export type { MandateDetailResponse, MandateListResponse, MandateRemaining, MandateRevokeBody, MandateRevokeResponse, MandateSpendView, MandateStatus, MandateView } from './mandate-view.ts';
