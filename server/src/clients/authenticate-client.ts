import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import type { Store } from '../store/index.ts';
import type { ClientRecord } from './client-record.ts';
import { secretMatches } from './client-record.ts';
import { findClient } from './create-client.ts';

const CHALLENGE = 'Basic realm="countersign", charset="UTF-8"';

function invalidClient(description: string): CountersignError {
  return new CountersignError('invalid_client', description, { headers: { 'WWW-Authenticate': CHALLENGE } });
}

/** Decodes an `application/x-www-form-urlencoded` component ('+' is a space). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replaceAll('+', ' '));
}

/**
 * Reads client credentials from `Authorization: Basic` (client_secret_basic: id and secret each
 * form-urlencoded before base64, RFC 6749 §2.3.1, as openid-client sends them) or from the form
 * (client_secret_post). Using both at once is refused (RFC 6749 §2.3).
 */
function readCredentials(c: Context, form: Record<string, string> | undefined): { id: string; secret: string } | null {
  const header = c.req.header('authorization');
  const inForm = form?.client_secret !== undefined;
  if (header !== undefined) {
    if (inForm) throw new CountersignError('invalid_request', 'Use one client authentication method, not two.');
    const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
    if (!match) throw invalidClient('Client authentication failed.');
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('Client authentication failed.');
    try {
      return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
    } catch {
      throw invalidClient('Client authentication failed.');
    }
  }
  if (inForm && form?.client_id !== undefined) return { id: form.client_id, secret: form.client_secret! };
  return null;
}

/**
 * Authenticates the calling client.
 *
 * @param form - the parsed form of a form-encoded endpoint, for client_secret_post; omit for JSON endpoints.
 * @returns the client's record.
 * @throws CountersignError `invalid_client` (401, with `WWW-Authenticate`) for missing or wrong
 *   credentials or an unknown client; `invalid_request` for two methods at once.
 * @see RFC 6749 §2.3.1 and §5.2, OpenID Connect Core §9
 */
export async function authenticateClient(c: Context, store: Store, form?: Record<string, string>): Promise<ClientRecord> {
  const credentials = readCredentials(c, form);
  if (!credentials) throw invalidClient('Client authentication is required.');
  const client = await findClient(store, credentials.id);
  // Compare even for an unknown client, so the answer takes the same time either way.
  const matches = secretMatches(credentials.secret, client?.secret_hash ?? 'x'.repeat(43));
  if (!client || !matches) throw invalidClient('Client authentication failed.');
  if (form && form.client_id !== undefined && form.client_id !== client.client_id) {
    throw invalidClient('client_id does not match the authenticated client.');
  }
  return client;
}
