import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { endpointProblem } from './endpoint-policy.ts';
import { ForbiddenEndpointError } from './forbidden-endpoint.ts';
import { createGuardedLookup, type HostResolver } from './guarded-lookup.ts';

/** The part of `fetch` the server uses to call out; the global `fetch` fits, and so does a test double. */
export type OutboundFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Options of {@link createGuardedFetch}. */
export interface GuardedFetchOptions {
  /** How host names are resolved; the system resolver by default. Tests answer a rebinding attacker's addresses. */
  resolve?: HostResolver | undefined;
}

/**
 * The production transport for URLs that clients name: a `fetch` that will not reach the server's
 * own network. Before anything is sent it checks the URL ({@link endpointProblem} in production
 * mode: https, no credentials, a public host, IP literals included); its connections resolve the
 * host through {@link createGuardedLookup}, so each socket goes to an address checked a moment
 * before, whatever DNS answered at registration. A refusal rejects with
 * {@link ForbiddenEndpointError} (directly, or as the `cause` of fetch's `TypeError`) and no
 * connection is opened.
 *
 * It runs on undici's `fetch` with an `Agent` of its own (`connect: { lookup }`): the global
 * `fetch` takes no lookup. Redirects, timeouts and bodies behave as with the global `fetch`; the
 * caller still says `redirect: 'manual'`.
 *
 * @param options The resolver.
 * @returns The guarded fetch; its connection pool lives as long as it does.
 * @see CIBA Core 1.0 §10.2 (the OP calls the client's endpoint), OWASP SSRF Prevention Cheat Sheet
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): OutboundFetch {
  const dispatcher = new Agent({ connect: { lookup: createGuardedLookup(options.resolve) } });
  return async (url, init) => {
    const problem = endpointProblem(url, { production: true });
    if (problem) throw new ForbiddenEndpointError(problem);
    const response = await undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher });
    return response as unknown as Response;
  };
}
