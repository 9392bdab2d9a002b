export { authenticateClient, type ClientAuthDeps } from './authenticate-client.ts';
export { checkClientEndpoints, CLIENT_URL_FIELDS } from './check-client-endpoints.ts';
export { limitClient, type ClientCall } from './limit-client.ts';
export { CLIENT_CACHE_MAX_ENTRIES, CLIENT_CACHE_TTL_MS, createClientCache, type ClientCache, type ClientCacheOptions } from './client-cache.ts';
export { CLIENT_JWT_LEEWAY_SECONDS, useJtiOnce, verifyClientJwt, type ClientJwtOptions, type ClientSigningAlg } from './client-jwt.ts';
export { hashSecret, secretMatches, type ClientRecord } from './client-record.ts';
export { createClient, findClient, type NewClient } from './create-client.ts';
export { CLIENT_CHALLENGE, readCredentials, type PresentedCredentials } from './read-credentials.ts';
export { JWT_BEARER_ASSERTION_TYPE, MAX_ASSERTION_LIFETIME_SECONDS, verifyClientAssertion, type AssertionResult } from './verify-client-assertion.ts';
