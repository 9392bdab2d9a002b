import { isLoopbackAddress } from './address-policy.ts';
import { forbiddenHostReason } from './host-policy.ts';

/** Options of {@link endpointProblem}. */
export interface EndpointPolicy {
  /** `NODE_ENV=production`: only https URLs on public hosts. Development also takes loopback (docs/design.md "Configuration and start-up"). */
  production: boolean;
}

/** `localhost`, `*.localhost`, `127.0.0.0/8` and `[::1]`: this machine, where development runs its receivers. */
function isLoopbackHost(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isLoopbackAddress(name.replace(/^\[(.*)\]$/, '$1'));
}

/**
 * Why the server must not POST to `endpoint`, a URL a client registered (its
 * `backchannel_client_notification_endpoint`), or null when it may.
 *
 * In production the URL must be `https:` on a public host ({@link forbiddenHostReason}: no loopback,
 * private, link-local, unique-local, CGNAT, multicast, reserved address in any spelling, no
 * internal name). In development any `https:` URL passes, and `http:` on this machine
 * (`localhost`, `127.0.0.1`, `[::1]`) too. In both, `user:pass@` is refused: the server
 * authenticates with the request's own bearer token, and credentials in a URL end up in logs and
 * `Referer`-like places (fetch refuses such a URL anyway).
 *
 * This judges the URL as written; the address it resolves to is checked again when the server
 * connects (`createGuardedFetch`), because DNS can answer differently then.
 *
 * @param endpoint The URL as registered.
 * @param policy The deployment mode.
 * @returns A clause naming the problem (`its host 169.254.169.254 is a link-local address`), or null.
 * @see CIBA Core 1.0 §4 (`backchannel_client_notification_endpoint` "MUST be HTTPS"), RFC 7591 §5
 */
export function endpointProblem(endpoint: string, policy: EndpointPolicy): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'it is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'it carries user:pass@ credentials';
  if (!policy.production) {
    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return null;
    return 'it must be https, or http on this machine (localhost) in development';
  }
  if (url.protocol !== 'https:') return 'it must be https';
  const reason = forbiddenHostReason(url.hostname);
  return reason ? `its host ${url.hostname} ${reason}` : null;
}
