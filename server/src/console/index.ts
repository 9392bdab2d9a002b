export { CONSOLE_CLIENT_NAME, consoleClient } from './console-client.ts';
export { consoleRoutes } from './console-routes.ts';
export { testRequestBody, testRequestRoutes } from './test-requests.ts';
