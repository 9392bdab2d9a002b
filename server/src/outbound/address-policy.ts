import ipaddr from 'ipaddr.js';

/** What each non-public range of ipaddr.js is, in words an operator reads in an error. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local address (fec0::/10)',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  amt: 'a multicast tunnel relay address',
  as112: 'a reserved address (AS112)',
  as112v6: 'a reserved address (AS112)',
  rfc6052: 'a local-use NAT64 address (64:ff9b:1::/48)',
};

/** IPv6 global unicast, RFC 4291 §2.4: every address a public host has, none of the special ones above. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** The well-known NAT64 prefix (RFC 6052 §2.1): the gateway connects to the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The last 32 bits of an IPv6 address as IPv4 (IPv4-mapped, IPv4-translated and NAT64 addresses carry it there). */
function lowIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [, , , , , , high, low] = address.parts as [number, number, number, number, number, number, number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address a 6to4 address (2002:AABB:CCDD::/48, RFC 3056 §2) routes to. */
function sixToFourIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [, high, low] = address.parts as [number, number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function ipv4Reason(address: ipaddr.IPv4): string | null {
  const range = address.range();
  if (range === 'unicast') return null;
  return RANGE_WORDS[range] ?? `a ${range} address`;
}

/** An IPv6 address that carries an IPv4 one reaches that IPv4 host: it is as public as the address it embeds. */
function embeddedReason(address: ipaddr.IPv6, embedded: ipaddr.IPv4, how: string): string | null {
  const inner = ipv4Reason(embedded);
  return inner ? `${how} embedding ${embedded.toString()}, ${inner}` : null;
}

function ipv6Reason(address: ipaddr.IPv6): string | null {
  const range = address.range();
  if (range === 'ipv4Mapped') return embeddedReason(address, lowIPv4(address), 'an IPv4-mapped address');
  if (range === 'rfc6145') return embeddedReason(address, lowIPv4(address), 'an IPv4-translated address');
  if (address.match(NAT64_WELL_KNOWN)) return embeddedReason(address, lowIPv4(address), 'a NAT64 address');
  if (range === '6to4') return embeddedReason(address, sixToFourIPv4(address), 'a 6to4 address');
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a ${range} address`;
  // ipaddr.js calls whatever it has no name for `unicast`, the IPv4-compatible `::a.b.c.d` included.
  if (!address.match(GLOBAL_UNICAST)) return 'outside the global unicast range 2000::/3';
  return null;
}

/**
 * Whether `address` (an IP literal as {@link forbiddenAddressReason} takes it) is this machine:
 * `127.0.0.0/8` or `::1`, also IPv4-mapped. Decided by the address's range, not by a reason's wording.
 */
export function isLoopbackAddress(address: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address).range() === 'loopback';
  if (!ipaddr.IPv6.isValid(address) || address.includes('%')) return false;
  const ip = ipaddr.IPv6.parse(address);
  return ip.isIPv4MappedAddress() ? ip.toIPv4Address().range() === 'loopback' : ip.range() === 'loopback';
}

/**
 * Why the server must not connect to `address`, or null when it is a public unicast address.
 *
 * A client or device names the URLs the server POSTs to; without this check it could aim the
 * server (and the bearer token it sends) at the server's own network: the cloud metadata service
 * at 169.254.169.254, an admin port on loopback, a database on a private address (server-side
 * request forgery). Only global unicast passes:
 * - IPv4: loopback, private (RFC 1918), link-local, carrier-grade NAT (100.64.0.0/10), multicast,
 *   broadcast, `0.0.0.0/8` and the reserved, documentation and benchmarking ranges are refused;
 * - IPv6: anything outside 2000::/3 (`::`, `::1`, `fe80::/10`, `fc00::/7`, `ff00::/8`,
 *   IPv4-compatible `::a.b.c.d`…) and the special ranges inside it (documentation, Teredo,
 *   benchmarking, ORCHID…) are refused;
 * - an IPv6 address that embeds an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated,
 *   NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4 address it reaches.
 *
 * @param address An IP literal, IPv4 dotted-quad or IPv6 without brackets (as DNS answers or
 *   the WHATWG URL parser normalises it).
 * @returns Why it is refused (e.g. `a link-local address`), or null when allowed; a string that
 *   is not an IP address at all is refused as `not an IP address`.
 * @see RFC 6890 (special-purpose address registries), RFC 4291 §2.4, RFC 6052, RFC 3056, RFC 6598
 * @example
 * ```ts
 * forbiddenAddressReason('169.254.169.254'); // 'a link-local address'
 * forbiddenAddressReason('::ffff:127.0.0.1'); // 'an IPv4-mapped address embedding 127.0.0.1, a loopback address'
 * forbiddenAddressReason('93.184.215.14');   // null
 * ```
 */
export function forbiddenAddressReason(address: string): string | null {
  // Only the four-part dotted form: `parse` would also read `0x7f.1` or `2130706433`, which the
  // URL parser has already normalised and DNS never answers.
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipv4Reason(ipaddr.IPv4.parse(address));
  if (ipaddr.IPv6.isValid(address) && !address.includes('%')) return ipv6Reason(ipaddr.IPv6.parse(address));
  return 'not an IP address';
}
