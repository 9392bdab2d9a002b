export * from './ciba.ts';
export * from './device.ts';
export * from './admin.ts';
export { bindingMessage, displayText, identifier } from './text.ts';
