export { bcAuthorizeHandler } from './bc-authorize-route.ts';
export { createRequest, type CreatedRequest } from './create-request.ts';
export { discoveryRoutes, providerMetadata } from './discovery-routes.ts';
export { parseBackchannelRequest, type BackchannelRequest } from './parse-backchannel-request.ts';
export { tokenHandler } from './token-route.ts';
