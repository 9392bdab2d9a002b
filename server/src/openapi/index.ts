export { buildOpenApiDocument, OPERATIONS, type OpenApiDocument, type OpenApiOptions } from './build-document.ts';
export { errorsByStatus, oauthError, type ErrorSpec } from './errors.ts';
export { openApiPath, operationKey, pathParams, type Operation } from './operation.ts';
export { openApiRoute } from './route.ts';
