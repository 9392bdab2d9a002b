import { CountersignError } from '@countersign/shared';
import { decodeJwt } from 'jose';
import { JWT_BEARER_ASSERTION_TYPE } from './verify-client-assertion.ts';

/** The `WWW-Authenticate` challenge sent with every `invalid_client`. @see RFC 6749 §5.2 */
export const CLIENT_CHALLENGE = 'Basic realm="countersign", charset="UTF-8"';

/**
 * `invalid_client` (401) with the challenge. The description never says which check failed: that
 * would tell an attacker which part of a forged credential to fix.
 * @see RFC 6749 §5.2, RFC 7521 §4.2.1
 */
export function invalidClient(): CountersignError {
  return new CountersignError('invalid_client', 'Client authentication failed.', { headers: { 'WWW-Authenticate': CLIENT_CHALLENGE } });
}

/** Credentials as presented, before any is checked: the method is the one the caller used. @see RFC 7591 §2 (`token_endpoint_auth_method`) */
export type PresentedCredentials = { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string } | { method: 'private_key_jwt'; clientId: string; assertion: string };

/** Decodes an `application/x-www-form-urlencoded` component ('+' is a space). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replaceAll('+', ' '));
}

/** client_secret_basic: id and secret each form-urlencoded before base64 (RFC 6749 §2.3.1). */
function readBasic(header: string): PresentedCredentials {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!match) throw invalidClient();
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient();
  try {
    return { method: 'client_secret_basic', clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient();
  }
}

/**
 * private_key_jwt: the client is the assertion's `sub` (RFC 7523 §3 item 2), read here without
 * verifying, only to find whose keys verify it. A `client_id` sent beside it must name the same client.
 */
function readAssertion(params: Record<string, string>): PresentedCredentials {
  if (params.client_assertion === undefined || params.client_assertion_type === undefined) {
    throw new CountersignError('invalid_request', 'client_assertion and client_assertion_type go together.');
  }
  if (params.client_assertion_type !== JWT_BEARER_ASSERTION_TYPE) throw invalidClient();
  let sub: unknown;
  try {
    sub = decodeJwt(params.client_assertion).sub;
  } catch {
    throw invalidClient();
  }
  if (typeof sub !== 'string' || (params.client_id !== undefined && params.client_id !== sub)) throw invalidClient();
  return { method: 'private_key_jwt', clientId: sub, assertion: params.client_assertion };
}

/**
 * Reads the one set of client credentials a call carries: `Authorization: Basic`
 * (client_secret_basic), `client_id` + `client_secret` parameters (client_secret_post), or
 * `client_assertion_type` + `client_assertion` (private_key_jwt).
 *
 * @param header - the `Authorization` header, if any.
 * @param params - the form parameters, or the JSON members that stand for them.
 * @returns the presented credentials, or null when there are none.
 * @throws CountersignError `invalid_request` for two methods at once (RFC 6749 §2.3: "MUST NOT
 *   use more than one authentication method in each request") or half an assertion;
 *   `invalid_client` for credentials too malformed to read.
 * @see RFC 6749 §2.3.1, RFC 7521 §4.2, RFC 7523 §2.2, OpenID Connect Core 1.0 §9
 */
export function readCredentials(header: string | undefined, params: Record<string, string>): PresentedCredentials | null {
  const used = [header !== undefined, params.client_secret !== undefined, params.client_assertion !== undefined || params.client_assertion_type !== undefined].filter(Boolean).length;
  if (used > 1) throw new CountersignError('invalid_request', 'Use one client authentication method, not two.');
  if (header !== undefined) return readBasic(header);
  if (params.client_secret !== undefined) {
    if (params.client_id === undefined) throw invalidClient();
    return { method: 'client_secret_post', clientId: params.client_id, secret: params.client_secret };
  }
  if (used === 1) return readAssertion(params);
  return null;
}
