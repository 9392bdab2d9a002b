import { authorizationDetails, bindingMessage, canonicalize, CountersignError, type AuthorizationDetails } from '@countersign/shared';
import type { Config } from '../config/index.ts';
import { describeIssue, formatJsonPath, isJcsNumber, parseStrictJson, type InexactNumber } from '../http/index.ts';
import type { ClientRecord } from '../clients/index.ts';

/** A validated backchannel authentication request. `requested_expiry` in seconds. */
export interface BackchannelRequest {
  scope: string;
  login_hint: string;
  binding_message: string | null;
  authorization_details: AuthorizationDetails;
  /** `requested_expiry` or the configured default; the policy tier may cap it (see `create-request.ts`). */
  expires_in: number;
  /** `requested_expiry` as sent, or null when the client left it to the server. */
  requested_expiry: number | null;
  client_notification_token: string | null;
}

const KNOWN = new Set([
  'scope',
  'login_hint',
  'login_hint_token',
  'id_token_hint',
  'binding_message',
  'user_code',
  'authorization_details',
  'requested_expiry',
  'client_notification_token',
  'acr_values',
  // Client authentication (RFC 6749 §2.3.1, RFC 7523 §2.2): checked before, ignored here.
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
]);

/**
 * Whether `path` (from the `authorization_details` array) names a number that may have a fraction:
 * one inside the `arguments` of an action that says it is a `tool_call`, or a `from` or `to` of a
 * `record_change`'s `changes` (a field's value as its system states it, e.g. a rate `0.15`).
 */
function mayHoldFraction(details: unknown, path: InexactNumber['path']): boolean {
  if (path.length < 3 || typeof path[0] !== 'number' || !Array.isArray(details)) return false;
  const action: unknown = details[path[0]];
  const type = typeof action === 'object' && action !== null ? (action as { type?: unknown }).type : undefined;
  if (type === 'tool_call') return path[1] === 'arguments';
  return type === 'record_change' && path.length === 4 && path[1] === 'changes' && (path[3] === 'from' || path[3] === 'to');
}

/**
 * The refusal for the first number of an action not written as it must be, or null. Every number
 * of an action is a whole count (minor units, records) and must be a canonical integer, except in
 * a tool call's `arguments`, which are a tool's own JSON and may hold any number (`1.5`), written
 * as JCS writes it (`isJcsNumber`): `1.50`, `15e-1` and `-0` are refused there too, since the hash
 * of the stored call must be a hash of the text that was sent.
 *
 * @param details - the parsed `authorization_details` array.
 * @param numbers - its numbers not written as canonical integers, with paths from the array.
 * @param prefix - how the path is named in the message (`authorization_details`).
 * @see RFC 8785 §3.2.2.3
 */
export function inexactNumberRefusal(details: unknown, numbers: InexactNumber[], prefix: string): CountersignError | null {
  for (const number of numbers) {
    if (!mayHoldFraction(details, number.path)) {
      return new CountersignError('invalid_authorization_details', `${formatJsonPath(number.path, prefix)}: numbers must be written as plain integers (no fraction, no exponent, no -0, at most 2^53 - 1).`);
    }
    if (!isJcsNumber(number.text)) {
      return new CountersignError('invalid_authorization_details', `${formatJsonPath(number.path, prefix)}: numbers in a tool call's arguments or a record change's values must be written as RFC 8785 (JCS) writes them, e.g. 1.5 (not 1.50, 15e-1 or -0), with no more digits than a double holds.`);
    }
  }
  return null;
}

/**
 * The most a request's `authorization_details` may be, in UTF-8 bytes of its JCS form: the approval
 * token carries it (base64url, 4/3 of it), and `/redeem`'s body (at most 64 KB) holds that token,
 * the action again and up to 20 `current_versions`. Larger, a request could be approved and never
 * redeemed (413), so it is refused before anything is stored. Each type's own limits stay; a
 * request cannot use all of them at once (two 15,000-character message bodies).
 */
export const MAX_DETAILS_BYTES = 24_000;

/**
 * Reads the JSON text of `authorization_details` as exactly one action. Refused: text that is not
 * JSON; a member named twice in one object (`JSON.parse` keeps the last value, other parsers the
 * first, so the person and the executor could read two amounts or payees in the same bytes); and
 * a number not written as a canonical integer (`49000.0`, `4.9e4`, `49E3`, `-0`, past 2^53 − 1),
 * except in a tool call's `arguments` (see {@link inexactNumberRefusal}). Every number of the
 * other types is a whole count (minor units, records), and the text is what the
 * agent meant: `JSON.parse` reads `49000.0` as 49000 while an executor's parser may read a float
 * or a decimal and round in its own way; the canonical spelling is also the one JCS writes, so
 * the hash of the stored action is a hash of what was sent.
 *
 * @param json - the parameter as sent (a form parameter, or a signed request's claim).
 * @returns the parsed value, for the action schemas to validate.
 * @throws CountersignError `invalid_authorization_details` naming the member and the reason.
 * @see RFC 8259 §4 and §6, RFC 7493 §2.3, RFC 8785 §3.2.2.3, RFC 9396 §2
 */
export function readAuthorizationDetailsJson(json: string): unknown {
  const read = parseStrictJson(json);
  if (!read.ok) {
    if (read.problem === 'syntax') throw new CountersignError('invalid_authorization_details', 'authorization_details is not valid JSON.');
    throw new CountersignError('invalid_authorization_details', `${formatJsonPath(read.path, 'authorization_details')}: the member is named twice; each name in an object must be unique.`);
  }
  const refusal = inexactNumberRefusal(read.value, read.inexactNumbers, 'authorization_details');
  if (refusal) throw refusal;
  return read.value;
}

/**
 * Validates the parameters of `POST /bc-authorize`: the form of a plain request, or the merged
 * parameters of a signed one (see `readAuthenticationParams`). Pure: it reads no store and
 * changes nothing, so every refusal leaves no trace but the audit line the caller writes.
 *
 * @throws CountersignError `invalid_request` (unknown or missing parameter, bad `requested_expiry`,
 *   unsupported hint), `invalid_scope` (no `openid`), `invalid_binding_message`,
 *   `invalid_authorization_details`.
 * @see CIBA Core 1.0 §7.1 (request parameters), §7.1.1 (signed request) and §13 (error words); RFC 9396 §5
 */
export function parseBackchannelRequest(form: Record<string, string>, client: ClientRecord, config: Config): BackchannelRequest {
  for (const name of Object.keys(form)) {
    if (!KNOWN.has(name)) throw new CountersignError('invalid_request', `Unknown parameter: ${name}.`);
  }
  const scope = form.scope ?? '';
  if (!scope.split(' ').includes('openid')) throw new CountersignError('invalid_scope', 'scope must include openid.');
  if (scope.length > 512 || !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(scope)) {
    throw new CountersignError('invalid_scope', 'scope is malformed.');
  }

  const hints = ['login_hint', 'login_hint_token', 'id_token_hint'].filter((name) => form[name] !== undefined);
  if (hints.length !== 1) throw new CountersignError('invalid_request', 'Exactly one of login_hint, login_hint_token and id_token_hint is required.');
  if (form.login_hint === undefined) throw new CountersignError('invalid_request', `${hints[0]} is not supported; use login_hint.`);
  const loginHint = form.login_hint;
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(loginHint)) throw new CountersignError('unknown_user_id', 'The user is not known.');

  if (form.user_code !== undefined) throw new CountersignError('invalid_request', 'user_code is not supported.');

  let binding: string | null = null;
  if (form.binding_message !== undefined) {
    const parsed = bindingMessage.safeParse(form.binding_message);
    if (!parsed.success) throw new CountersignError('invalid_binding_message', describeIssue(parsed.error, 'binding_message'));
    binding = parsed.data;
  }

  if (form.authorization_details === undefined) throw new CountersignError('invalid_request', 'authorization_details is required: say exactly what is to be approved.');
  const raw = readAuthorizationDetailsJson(form.authorization_details);
  const details = authorizationDetails.safeParse(raw);
  if (!details.success) throw new CountersignError('invalid_authorization_details', describeIssue(details.error, 'authorization_details', raw));
  const bytes = Buffer.byteLength(canonicalize(details.data), 'utf8');
  if (bytes > MAX_DETAILS_BYTES) {
    throw new CountersignError('invalid_authorization_details', `authorization_details: must be at most ${MAX_DETAILS_BYTES} bytes as JCS (RFC 8785), so that its approval token and the action fit /redeem; these are ${bytes}`);
  }

  let expiresIn = config.requestExpiryDefault;
  if (form.requested_expiry !== undefined) {
    if (!/^[0-9]{1,6}$/.test(form.requested_expiry)) throw new CountersignError('invalid_request', 'requested_expiry must be a positive whole number of seconds.');
    expiresIn = Number(form.requested_expiry);
    if (expiresIn < 1 || expiresIn > config.requestExpiryMax) {
      throw new CountersignError('invalid_request', `requested_expiry must be between 1 and ${config.requestExpiryMax} seconds.`);
    }
  }

  const notificationToken = form.client_notification_token ?? null;
  if (client.token_delivery_mode !== 'poll') {
    if (!notificationToken) throw new CountersignError('invalid_request', 'client_notification_token is required for ping and push clients.');
  }
  if (notificationToken !== null && (notificationToken.length > 1024 || !/^[\x21-\x7e]+$/.test(notificationToken))) {
    throw new CountersignError('invalid_request', 'client_notification_token must be at most 1024 printable characters.');
  }

  return {
    scope,
    login_hint: loginHint,
    binding_message: binding,
    authorization_details: details.data,
    expires_in: expiresIn,
    requested_expiry: form.requested_expiry === undefined ? null : expiresIn,
    client_notification_token: notificationToken,
  };
}
