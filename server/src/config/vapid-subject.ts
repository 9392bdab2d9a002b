import { unreachableDomainReason } from './host-names.ts';

/**
 * Why a VAPID subject is no good for production, or null when it is.
 *
 * The subject is how a push service operator reaches whoever runs this server when its pushes
 * misbehave (RFC 8292 §2.1: "a contact URI for the application server", `mailto:` or `https:`).
 * Push services may throttle or refuse senders they cannot contact, so a placeholder that
 * passes the syntax check (`mailto:admin@localhost`, `https://push.example`) is refused at start:
 * - `https:` URLs must be on a public domain name;
 * - `mailto:` must hold exactly one address, whose domain is public;
 * - an IP address, a single-label name, or a name under `.local`, `.invalid`, `.test`,
 *   `.example`, `.localhost`, `.internal`, `example.com|net|org` or `home.arpa` is refused.
 *
 * @param subject `VAPID_SUBJECT` as configured.
 * @returns A reason to show the operator, or null.
 * @see RFC 8292 §2.1 (`sub` claim), RFC 2606 (reserved names), RFC 6762 (`.local`)
 */
export function vapidSubjectProblem(subject: string): string | null {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    return 'must be a mailto: or https: URL';
  }
  if (url.protocol === 'https:') {
    const reason = unreachableDomainReason(url.hostname);
    return reason ? `https: host ${url.hostname} ${reason}` : null;
  }
  if (url.protocol === 'mailto:') {
    const address = decodeURIComponent(url.pathname);
    const at = address.lastIndexOf('@');
    if (address.includes(',') || at <= 0 || address.indexOf('@') !== at) return 'mailto: must hold exactly one e-mail address';
    const domain = address.slice(at + 1);
    const reason = unreachableDomainReason(domain);
    return reason ? `mailto: domain ${domain} ${reason}` : null;
  }
  return 'must be a mailto: or https: URL';
}
