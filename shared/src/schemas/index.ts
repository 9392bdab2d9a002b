export * from './ciba.ts';
export * from './device.ts';
export * from './admin.ts';
export { bindingMessage, displayName, displayText, identifier, toDisplayText } from './text.ts';
