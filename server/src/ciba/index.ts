export { bcAuthorizeHandler } from './bc-authorize-route.ts';
export { createRequest, type CreatedRequest } from './create-request.ts';
export { discoveryRoutes, providerMetadata } from './discovery-routes.ts';
export { bindTokens, issueTokens, type BindTokensDeps } from './issue-tokens.ts';
export { DEFAULT_POLL_INTERVAL_SECONDS, pollThrottle, SLOW_DOWN_INCREMENT_SECONDS, type PollResult } from './poll-throttle.ts';
export { pushRequest, pushRequestTo } from './push-request.ts';
export { parseBackchannelRequest, type BackchannelRequest } from './parse-backchannel-request.ts';
export { MAX_REQUEST_OBJECT_LIFETIME_SECONDS, readAuthenticationParams, verifyRequestObject, type AuthenticationParams, type RequestObjectUse } from './request-object.ts';
export { tokenHandler } from './token-route.ts';
