export * from './ciba.ts';
export * from './device.ts';
export * from './admin.ts';
export { codePointName } from './code-point-name.ts';
export { lookAlikeProblem } from './look-alike.ts';
export { bindingMessage, canonicalText, displayName, displayText, identifier, MAX_COMBINING_MARKS, mixedScriptProblem, toDisplayText, unseenProblem } from './text.ts';
