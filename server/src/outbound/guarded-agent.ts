import { Agent } from 'node:https';
import { createGuardedLookup, type HostResolver } from './guarded-lookup.ts';

/**
 * An `https.Agent` whose connections resolve their host through {@link createGuardedLookup}: a
 * socket to an address that is not public is never opened (the request fails with a
 * `ForbiddenEndpointError`, code `ERR_ENDPOINT_FORBIDDEN`). For senders built on `node:https`
 * (web-push takes an `agent`), where the fetch of `createGuardedFetch` does not fit. It checks
 * names only: IP literals never reach a lookup, so check the URL's host first.
 *
 * @param options The resolver; the system's by default.
 * @returns A keep-alive agent.
 * @see Node.js `https.Agent`, `net.connect` option `lookup`
 */
export function createGuardedHttpsAgent(options: { resolve?: HostResolver | undefined } = {}): Agent {
  return new Agent({ keepAlive: true, lookup: createGuardedLookup(options.resolve) });
}
