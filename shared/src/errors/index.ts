export { ERROR_CODES, isErrorCode, type ErrorCode } from './codes.ts';
export { CountersignError, type CountersignErrorOptions } from './countersign-error.ts';
