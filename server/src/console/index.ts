export { CONSOLE_CLIENT_NAME, consoleClient } from './console-client.ts';
export { CONSOLE_DIST, consoleRoutes } from './console-routes.ts';
export { SAMPLE_LABELS, SAMPLE_TYPES, sampleAction, samplePreviews, type SamplePreview, type SampleType } from './sample-actions.ts';
export { testRequestBody, testRequestRoutes } from './test-requests.ts';
