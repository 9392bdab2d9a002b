export { describeIssue, errorHandler, notFound, refuse, STORE_RETRY_AFTER_SECONDS, storeUnavailable } from './errors.ts';
export { readForm, readJson, readJsonDocument, type JsonDocument } from './read-body.ts';
export { formatJsonPath, isJcsNumber, parseStrictJson, type InexactNumber, type JsonPath, type StrictJsonResult } from './strict-json.ts';
export { bodyTooLarge, contentLengthLimit, MAX_BODY_BYTES } from './body-limit.ts';
export { CONTENT_SECURITY_POLICY, securityHeaders, securityHeaderSet, type SecurityHeadersOptions } from './security-headers.ts';
export { answerClientErrors, nodeServerOptions, type TimeoutOptions } from './node-server.ts';
export { sourceAddress, UNKNOWN_SOURCE } from './source-address.ts';
export { requestDeadline } from './request-deadline.ts';
export { allowedMethods } from './method-not-allowed.ts';
