import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The source of a request that came without a socket (`app.request()` in tests and in-process
 * tools, an adapter that exposes none): all of them share this one name, so a limit per source
 * address still holds for them together (it fails closed), and none can choose its own name with
 * a header.
 */
export const UNKNOWN_SOURCE = 'unknown';

/** An address as a peer or a proxy states it, strictly: four-part decimal IPv4 or IPv6, an IPv4-mapped IPv6 address as its IPv4 one. */
function parseAddress(text: string): Address | null {
  const trimmed = text.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(trimmed)) return ipaddr.IPv4.parse(trimmed);
  if (!ipaddr.IPv6.isValid(trimmed)) return null;
  const address = ipaddr.IPv6.parse(trimmed);
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

const RANGES = new WeakMap<readonly string[], [Address, number][]>();

/** The configured CIDR ranges (`Config.trustedProxies`, checked at start), parsed once per list. */
function rangesOf(trustedProxies: readonly string[]): [Address, number][] {
  let ranges = RANGES.get(trustedProxies);
  if (!ranges) {
    ranges = trustedProxies.map((cidr) => ipaddr.parseCIDR(cidr));
    RANGES.set(trustedProxies, ranges);
  }
  return ranges;
}

function isTrusted(address: Address, ranges: [Address, number][]): boolean {
  return ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** The socket's peer, or null when the request came without one (see {@link UNKNOWN_SOURCE}). */
function peerOf(c: Context): Address | null {
  try {
    const address = getConnInfo(c).remote.address;
    return address ? parseAddress(address) : null;
  } catch {
    return null;
  }
}

/**
 * The source address a request is counted under by the limits per source address (failed client
 * and admin authentication): the socket's peer (@hono/node-server's `getConnInfo`). Only when that
 * peer is one of `trustedProxies` (`TRUSTED_PROXIES`) is `X-Forwarded-For` read, from its right
 * end: each hop a trusted proxy appended is believed, and the first address that is not a trusted
 * proxy's is the source. So a client cannot pick its own name by sending the header: without a
 * trusted proxy in front it is ignored, and behind one only what that proxy appended counts. A hop
 * that is not a plain address ends the walk at the last trusted one.
 *
 * IPv6 sources are counted by their /64, the block one subscriber is given (RFC 6177), so that
 * rotating through one's own addresses does not escape a limit.
 *
 * @returns an IPv4 address (`203.0.113.7`), an IPv6 /64 (`2001:db8:1:2::/64`), or {@link UNKNOWN_SOURCE}.
 * @see RFC 7239 §5.2 (the forwarded-for chain), RFC 6177 (IPv6 end-site assignment)
 */
export function sourceAddress(c: Context, trustedProxies: readonly string[]): string {
  let source = peerOf(c);
  if (!source) return UNKNOWN_SOURCE;
  const ranges = rangesOf(trustedProxies);
  if (ranges.length > 0 && isTrusted(source, ranges)) {
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',');
    while (hops.length > 0 && isTrusted(source, ranges)) {
      const hop = parseAddress(hops.pop()!);
      if (!hop) break;
      source = hop;
    }
  }
  if (source.kind() === 'ipv4') return source.toString();
  return `${(source as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
