import { isIP } from 'node:net';

/** One DNS label in its ASCII (punycode) form: letters, digits and inner hyphens, 1–63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Top-level names reserved so that they never resolve on the public internet: RFC 2606 §2
 * (`test`, `example`, `invalid`, `localhost`), RFC 6762 (`local`, multicast DNS) and ICANN's
 * 2024 reservation of `internal` for private use. Nobody at such a domain can be reached.
 */
const RESERVED_TOP_LEVEL = new Set(['test', 'example', 'invalid', 'localhost', 'local', 'internal']);

/** Second-level names reserved for documentation (RFC 2606 §3) and home networks (RFC 8375). */
const RESERVED_SECOND_LEVEL = new Set(['example.com', 'example.net', 'example.org', 'home.arpa']);

/**
 * Whether `host` is a syntactically valid DNS host name in lower-case ASCII (a punycode `xn--`
 * label is ASCII too): dot-separated {@link LABEL}s, at most 253 characters, no trailing dot.
 * IP literals are not host names here.
 */
export function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > 253 || isIP(host) !== 0) return false;
  return host.split('.').every((label) => LABEL.test(label));
}

/** Whether `host` is an IPv4 or IPv6 literal, bracketed (as in a URL) or not. */
export function isIpLiteral(host: string): boolean {
  return isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

/**
 * Why `host` is not a domain at which someone on the public internet can be reached, or null
 * when it looks like one: an IP literal, a single label (`localhost`, `intranet`), or a name under
 * a reserved top-level or second-level domain (`.local`, `.invalid`, `.test`, `.example`,
 * `example.com`…). It cannot tell a registered domain from an unregistered one; it refuses what is
 * certain never to work.
 *
 * @param host A host name as written by the operator; compared case-insensitively.
 * @returns A short reason, or null.
 */
export function unreachableDomainReason(host: string): string | null {
  const name = host.toLowerCase();
  if (isIpLiteral(name)) return 'is an IP address, not a domain';
  if (!isHostName(name)) return 'is not a valid domain name';
  const labels = name.split('.');
  if (labels.length < 2) return 'is a single-label name, not a public domain';
  const top = labels.at(-1)!;
  if (RESERVED_TOP_LEVEL.has(top)) return `is under .${top}, which is reserved and never reachable`;
  const second = labels.slice(-2).join('.');
  if (RESERVED_SECOND_LEVEL.has(second)) return `is under ${second}, which is reserved`;
  return null;
}
