export * from './ciba.ts';
export * from './device.ts';
export * from './admin.ts';
export { bindingMessage, canonicalText, codePointName, displayName, displayText, identifier, MAX_COMBINING_MARKS, mixedScriptProblem, toDisplayText, unseenProblem } from './text.ts';
