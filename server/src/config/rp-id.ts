import { isHostName, isIpLiteral } from './host-names.ts';

/**
 * Settles the WebAuthn Relying Party ID: `PUBLIC_URL`'s host, or `RP_ID` when the operator sets
 * one (to share passkeys between `approve.example.com` and `example.com`, say).
 *
 * An RP ID is a bare domain (WebAuthn Level 3 §5.1.4.1 "RP ID": a valid domain string, no scheme,
 * no port), and it must be the origin's effective domain or a registrable suffix of it, or the
 * browser refuses every ceremony. Better to refuse at start than to find out at the first
 * enrollment, with an error the person on the phone cannot act on:
 * - a scheme (`https://example.com`), a port (`example.com:8443`), a path or credentials: refused;
 * - an IP address: refused (browsers do not accept one as an RP ID);
 * - not `PUBLIC_URL`'s host nor a parent domain of it: refused;
 * - a single-label parent (`com`), except `localhost`: refused. Browsers also refuse any other
 *   public suffix (`co.uk`), from the Public Suffix List, which this server does not carry.
 *
 * `PUBLIC_URL` itself must be on a host name, in every mode: with an IP address as its host
 * (`http://127.0.0.1:8080`) the server would start, and every enrollment would then fail in the
 * browser, which refuses an IP address as an RP ID. Development uses `http://localhost:PORT`.
 *
 * @param publicUrl The validated `PUBLIC_URL`.
 * @param override `RP_ID`, if set.
 * @returns The RP ID, lower case.
 * @throws Error naming the variable and the problem.
 * @see WebAuthn Level 3 §5.1.3 step 8 and §5.1.4.1 step 7 (RP ID vs. the origin's effective domain);
 *   HTML "is a registrable domain suffix of or is equal to"
 */
export function settleRpId(publicUrl: URL, override: string | undefined): string {
  const host = publicUrl.hostname.toLowerCase();
  if (isIpLiteral(host)) {
    const port = publicUrl.port ? `:${publicUrl.port}` : '';
    throw invalid(`PUBLIC_URL ${publicUrl.origin} has an IP address as its host, and browsers refuse an IP address as the WebAuthn RP ID, so no passkey could be enrolled: use http://localhost${port} in development, or a domain name (https://approve.example.com) in production`);
  }
  if (override === undefined || override === '') return host;
  const rpId = override.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rpId)) throw invalid(`RP_ID must be a bare host name without a scheme (e.g. ${host}), got ${JSON.stringify(rpId)}`);
  if (/:\d*$/.test(rpId) && !rpId.startsWith('[')) throw invalid(`RP_ID must be a bare host name without a port, got ${JSON.stringify(rpId)}`);
  if (/[/?#@\s]/.test(rpId)) throw invalid(`RP_ID must be a bare host name (no path, query or credentials), got ${JSON.stringify(rpId)}`);
  if (isIpLiteral(rpId)) throw invalid('RP_ID must be a domain name: browsers refuse an IP address as the WebAuthn RP ID');
  if (rpId !== rpId.toLowerCase()) throw invalid(`RP_ID must be lower case, got ${JSON.stringify(rpId)}`);
  if (!isHostName(rpId)) throw invalid(`RP_ID is not a valid host name: ${JSON.stringify(rpId)}`);
  if (rpId !== host && !host.endsWith(`.${rpId}`)) {
    throw invalid(`RP_ID ${rpId} must be PUBLIC_URL's host (${host}) or a parent domain of it`);
  }
  if (rpId !== host && !rpId.includes('.') && rpId !== 'localhost') {
    throw invalid(`RP_ID ${rpId} is a top-level domain; browsers accept only a registrable domain`);
  }
  return rpId;
}

function invalid(message: string): Error {
  return new Error(`invalid configuration: ${message}`);
}
