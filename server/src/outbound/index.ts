export { forbiddenAddressReason } from './address-policy.ts';
export { endpointProblem, type EndpointPolicy } from './endpoint-policy.ts';
export { ForbiddenEndpointError, forbiddenEndpointCause } from './forbidden-endpoint.ts';
export { createGuardedHttpsAgent } from './guarded-agent.ts';
export { createGuardedFetch, type GuardedFetchOptions, type OutboundFetch } from './guarded-fetch.ts';
export { createGuardedLookup, systemResolver, type HostResolver, type ResolvedAddress } from './guarded-lookup.ts';
export { forbiddenHostReason } from './host-policy.ts';
