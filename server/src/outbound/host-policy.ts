import { isIP } from 'node:net';
import { unreachableDomainReason } from '../config/index.ts';
import { forbiddenAddressReason } from './address-policy.ts';

/** First labels of names that cloud networks answer with their instance metadata service. */
const METADATA_LABEL = 'metadata';

/**
 * Why the server must not connect to `hostname`, or null when it names a public host.
 *
 * `hostname` is what the WHATWG URL parser made of the endpoint's host, so every spelling of an
 * IP address has already become one form: `2852039166`, `0251.0376.0251.0376` and `0xa9.0xfe.0xa9.0xfe`
 * are `169.254.169.254`, IPv6 is `[…]` in its shortest form. Then:
 * - an IP literal is judged by {@link forbiddenAddressReason};
 * - a name is refused when it can only be internal: `localhost` and `*.localhost`, names under
 *   `.internal`, `.local`, `.home.arpa` and the other reserved names (RFC 2606, RFC 6761,
 *   RFC 6762, RFC 8375), a name whose first label is `metadata` (`metadata.google.internal` and
 *   its kin on other clouds), and single-label names (`intranet`), which only a local resolver
 *   search list can answer. One trailing dot (`localhost.`, the fully qualified spelling) is the
 *   same name and gets the same answer.
 *
 * A public-looking name can still resolve to an internal address: the connection is checked
 * again on the resolved address (see `createGuardedLookup`).
 *
 * @param hostname `URL.hostname`: lower case, punycode, IPv6 in brackets.
 * @returns Why it is refused, phrased to follow "the host X ", or null.
 * @see RFC 6761 §6.3 (localhost), RFC 6762 (.local), RFC 8375 (home.arpa), WHATWG URL §3.5 (host parsing)
 */
export function forbiddenHostReason(hostname: string): string | null {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const literal = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIP(literal) !== 0) {
    const reason = forbiddenAddressReason(literal);
    return reason ? `is ${reason}` : null;
  }
  if (name === 'localhost' || name.endsWith('.localhost')) return 'names this machine (localhost)';
  if (name.split('.')[0] === METADATA_LABEL) return 'names a cloud metadata service';
  return unreachableDomainReason(name);
}
