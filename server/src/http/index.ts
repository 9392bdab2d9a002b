export { describeIssue, errorHandler, notFound, refuse } from './errors.ts';
export { readForm, readJson } from './read-body.ts';
