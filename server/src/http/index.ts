export { describeIssue, errorHandler, notFound, refuse, STORE_RETRY_AFTER_SECONDS, storeUnavailable } from './errors.ts';
export { readForm, readJson } from './read-body.ts';
