import { CountersignError } from '@countersign/shared';
import type { JWTPayload } from 'jose';
import type { ClientRecord } from '../clients/index.ts';
import { formatJsonPath, parseStrictJson } from '../http/index.ts';
import { inexactNumberRefusal } from './parse-backchannel-request.ts';

/** The JWT's own claims: checked by the verifier, not authentication request parameters. */
const ENVELOPE = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'client_id']);

/** Authentication request parameters that are strings as claims, as they are as form parameters. */
const STRING_PARAMS = new Set(['scope', 'login_hint', 'login_hint_token', 'id_token_hint', 'binding_message', 'user_code', 'client_notification_token', 'acr_values']);

function refuse(description: string): CountersignError {
  return new CountersignError('invalid_request', `request: ${description}`);
}

/**
 * Turns a verified request object's claims into the form parameters they stand for, so one
 * validator (`parseBackchannelRequest`) reads plain and signed requests alike:
 * `requested_expiry` may be a number or a string; `authorization_details` a JSON array (its JSON
 * text is passed on) or a string of JSON. Any other claim is refused, client authentication
 * parameters included: they do not belong inside.
 *
 * A JWT claims set is parsed (by `JSON.parse`) before anything sees it, so the payload's own text
 * is read again, strictly: a claim or member named twice is refused (the signer's library may have
 * meant the first value, `JSON.parse` keeps the last), and, when the details are given as JSON
 * rather than as a string, every number inside them must be written as a plain integer, as in a
 * plain request (`49000.0` would otherwise silently become `49000`).
 *
 * @param jwt - the compact JWT the claims were verified from.
 * @throws CountersignError `invalid_request` for an unknown claim, a claim named twice, a value of
 *   the wrong type or a `client_id` claim naming another client; `invalid_authorization_details`
 *   for a member named twice inside the details, or a number in them spelled with a fraction, an
 *   exponent or as `-0`.
 * @see CIBA Core 1.0 §7.1 (parameters) and §7.1.1 (signed request), RFC 9396 §2, RFC 7493 §2.3
 */
export function requestObjectParams(jwt: string, claims: JWTPayload, client: ClientRecord): Record<string, string> {
  if (claims.client_id !== undefined && claims.client_id !== client.client_id) throw refuse('client_id names another client.');
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (ENVELOPE.has(name)) continue;
    if (STRING_PARAMS.has(name)) {
      if (typeof value !== 'string') throw refuse(`${name} must be a string.`);
      params[name] = value;
    } else if (name === 'requested_expiry') {
      if (typeof value === 'string') params[name] = value;
      else if (typeof value === 'number' && Number.isSafeInteger(value)) params[name] = String(value);
      else throw refuse('requested_expiry must be a whole number of seconds.');
    } else if (name === 'authorization_details') {
      params[name] = typeof value === 'string' ? value : JSON.stringify(value);
    } else {
      throw refuse(`unknown claim: ${name}.`);
    }
  }
  // Last, once every claim has its type: the payload as written, for what parsing it erased.
  const read = parseStrictJson(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
  if (!read.ok) {
    if (read.problem === 'syntax') throw refuse('the claims set is not valid JSON.');
    if (read.path[0] === 'authorization_details' && read.path.length > 1) {
      throw new CountersignError('invalid_authorization_details', `${formatJsonPath(read.path)}: the member is named twice; each name in an object must be unique.`);
    }
    throw refuse(`the claims set names ${formatJsonPath(read.path)} twice; each name must be unique.`);
  }
  if (typeof claims.authorization_details !== 'string') {
    const numbers = read.inexactNumbers.filter((number) => number.path[0] === 'authorization_details').map((number) => ({ ...number, path: number.path.slice(1) }));
    const refusal = inexactNumberRefusal(claims.authorization_details, numbers, 'authorization_details');
    if (refusal) throw refusal;
  }
  return params;
}
