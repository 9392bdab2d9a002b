import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { forbiddenAddressReason } from './address-policy.ts';
import { ForbiddenEndpointError } from './forbidden-endpoint.ts';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; tests inject one that answers what a rebinding DNS server would. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`getaddrinfo`, as `net.connect` itself uses), every address in the order it answers. */
export const systemResolver: HostResolver = async (hostname) => (await dnsLookup(hostname, { all: true, order: 'verbatim' })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

function wantedFamily(family: number | string | undefined): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/**
 * A `lookup` for `net.connect` / `tls.connect` that resolves the host, refuses the connection when
 * any address it resolves to is not public ({@link forbiddenAddressReason}), and otherwise hands
 * the socket exactly the addresses it checked.
 *
 * Why at connect time, after the URL was checked at registration: a name is only a pointer. Its
 * owner can make it answer a public address when it is registered and `127.0.0.1` or
 * `169.254.169.254` later (DNS rebinding, a TTL of 0), so only the address the socket is about to
 * use can be judged, and the socket must use that very address rather than resolve again. Every
 * address is checked, not only the first, because a connection falls back to the next one
 * (Happy Eyeballs) when the first fails. IP literals never reach a lookup: check the URL too.
 *
 * @param resolve The resolver; {@link systemResolver} by default.
 * @returns The lookup function; it calls back with a {@link ForbiddenEndpointError} to refuse.
 * @see RFC 8305 (Happy Eyeballs), Node.js `net.connect` option `lookup`
 */
export function createGuardedLookup(resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const all = options.all === true;
    const fail = (error: NodeJS.ErrnoException) => (all ? callback(error, []) : callback(error, '', 0));
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const reason = forbiddenAddressReason(address);
          if (reason) return fail(new ForbiddenEndpointError(`its host ${hostname} resolves to ${address}, ${reason}`));
        }
        const family = wantedFamily(options.family);
        const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
        const first = usable[0];
        if (!first) return fail(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
        return all ? callback(null, usable) : callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => fail(error),
    );
  };
}
