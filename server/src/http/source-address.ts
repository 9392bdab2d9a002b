import { createHash } from 'node:crypto';
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

/** The longest proxy-written name (not an address) taken as it is; a longer one is counted by its hash. */
const MAX_NAME_LENGTH = 64;

/**
 * One `X-Forwarded-For` entry, as a trusted proxy wrote it: an address, with a port a proxy may
 * append (`192.0.2.50:5555`, `[2001:db8::1]:443`, as Azure Application Gateway writes them)
 * stripped, since a port names a connection, not a client; null for an empty entry (the proxy
 * appended nothing); otherwise the entry's own text, as a name of its own.
 *
 * Why a name and not the proxy's address: the entry is what a trusted proxy says about the client
 * it saw (`unknown`, an RFC 7239 §6.3 obfuscated `_node`, a spelling we do not read), so the clients
 * it names that way share one allowance among themselves, and the clients it names by address keep
 * theirs. Falling back to the proxy's address would put every client of the proxy in one bucket,
 * so ten wrong admin tokens from anyone would lock the operator out. The name is bounded (a long or
 * non-printable one is counted by its SHA-256) and prefixed, so it is never mistaken for an address.
 */
function parseHop(text: string | undefined): Address | string | null {
  const trimmed = (text ?? '').trim();
  if (!trimmed) return null;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(trimmed) ?? /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(trimmed);
  const address = withPort && Number(withPort[2] ?? 0) <= 65_535 ? parseAddress(withPort[1]!) : parseAddress(trimmed);
  if (address) return address;
  const name = /^[\x21-\x7e]+$/.test(trimmed) && trimmed.length <= MAX_NAME_LENGTH ? trimmed : `#${createHash('sha256').update(trimmed).digest('base64url')}`;
  return `forwarded:${name}`;
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
 * trusted proxy in front it is ignored, and behind one only what that proxy appended counts. A
 * port after an address is dropped; an entry that is not an address is the name its proxy gave
 * the client ({@link parseHop}); an empty or missing one leaves the last trusted proxy as the source.
 *
 * The RFC 7239 `Forwarded` header is not read: a proxy that writes only `X-Forwarded-For` passes a
 * client's own `Forwarded` through untouched, so reading it would let the client name itself.
 *
 * IPv6 sources are counted by their /64, the block one subscriber is given (RFC 6177), so that
 * rotating through one's own addresses does not escape a limit.
 *
 * @returns an IPv4 address (`203.0.113.7`), an IPv6 /64 (`2001:db8:1:2::/64`), a proxy's name for
 *   the client (`forwarded:unknown`), or {@link UNKNOWN_SOURCE}.
 * @see RFC 7239 §5.2 (the forwarded-for chain), RFC 6177 (IPv6 end-site assignment)
 */
export function sourceAddress(c: Context, trustedProxies: readonly string[]): string {
  const peer = peerOf(c);
  if (!peer) return UNKNOWN_SOURCE;
  let source: Address | string = peer;
  const ranges = rangesOf(trustedProxies);
  if (ranges.length > 0 && isTrusted(peer, ranges)) {
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',');
    while (typeof source !== 'string' && isTrusted(source, ranges)) {
      const hop = parseHop(hops.pop());
      if (hop === null) break;
      source = hop;
    }
  }
  if (typeof source === 'string') return source;
  if (source.kind() === 'ipv4') return source.toString();
  return `${(source as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
