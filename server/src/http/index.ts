export { describeIssue, errorHandler, notFound, refuse, STORE_RETRY_AFTER_SECONDS, storeUnavailable } from './errors.ts';
export { readForm, readJson } from './read-body.ts';
export { bodyTooLarge, contentLengthLimit, MAX_BODY_BYTES } from './body-limit.ts';
export { CONTENT_SECURITY_POLICY, securityHeaders, securityHeaderSet, type SecurityHeadersOptions } from './security-headers.ts';
export { answerClientErrors, nodeServerOptions, type TimeoutOptions } from './node-server.ts';
export { sourceAddress, UNKNOWN_SOURCE } from './source-address.ts';
