import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, UNLIMITED_RATES, type EnrolledUser, type Harness } from './support/harness.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';
import { basic, LEAK, OAUTH_DESCRIPTION, send, type Credentials, type Raw } from './support/raw-request.ts';
import { expectOnlyAllowedChanges } from './support/allowed-changes.ts';
import { watchStore, type StoreWatch } from './support/store-watch.ts';

/**
 * Bad input on every endpoint of docs/design.md "HTTP surface", as `createApp` serves it: malformed
 * JSON and forms, unknown fields, impossible amounts, unknown currencies, over-long and deceptive
 * text, wrong content types, missing or wrong credentials, other people's ids.
 *
 * Every case must answer a 4xx with an OAuth error body `{error, error_description}` (no stack
 * trace, no internal path, an RFC 6749 §5.2 description) and must change nothing: the store is
 * watched through its own interface during the call (`support/store-watch.ts`: every writing
 * operation of the Store, every kind of key), and every key the call writes is compared before and
 * after. The only changes a refusal may leave are `refused` events, with the answer's error as
 * reason, appended to the tenant's audit chain and its request index (guarantee 9, docs/audit.md)
 * and, where the design says so, a single-use value it consumed (a WebAuthn decision challenge, an
 * enrollment code). `store-watch.test.ts` shows the watcher catching a deliberately broken
 * endpoint. The tables run on the memory store and on Redis; after them, controls show the
 * baseline inputs the cases were derived from are valid and every record the cases aimed at is
 * still usable.
 */

// ---------------------------------------------------------------------------------------------
// The world the cases attack: two users with passkeys, three clients, requests in every state.
// ---------------------------------------------------------------------------------------------

interface World {
  h: Harness;
  alice: EnrolledUser;
  bob: EnrolledUser;
  /** Client A (tenant default): asked for alice's and bob's requests. */
  a: Credentials;
  /** Client B (tenant default): a second agent, for cross-client attacks. */
  b: Credentials;
  /** Client C (tenant acme). */
  c: Credentials;
  /** Alice's pending request from client A, transaction `txn_pending_a`. */
  pendingA: string;
  /** Bob's pending request from client A. */
  pendingBob: string;
  /** Alice's approved request from client A and its approval token. */
  approvedA: string;
  approvedToken: string;
  /** A redeemed request of client A and its redemption id (outcome still unknown). */
  redeemedA: string;
  redemptionA: string;
  /** An enrollment code that was already used to register a device. */
  usedCode: string;
  /** A user without any device. */
  deviceless: string;
}

const TENANT_ACME = 'acme';

/** The payment of docs/ciba.md, with overrides. */
function payment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'payment',
    transaction_id: 'txn_1042',
    amount_minor: 49000,
    currency: 'EUR',
    payee: { id: 'acct_77', name: 'ACME Ltd' },
    purpose: 'Refund for order 1042',
    ...overrides,
  };
}

let transactions = 0;
/** A fresh transaction id, so that a case that wrongly succeeded could never be an idempotent replay. */
function txn(): string {
  transactions += 1;
  return `txn_bad_${transactions}`;
}

/** One payment in `authorization_details`, with one member replaced by raw JSON text. */
function rawDetails(member: string, json: string): string {
  const base = payment({ transaction_id: txn() });
  const parts = Object.entries(base).map(([name, value]) => `"${name}":${name === member ? json : JSON.stringify(value)}`);
  if (!Object.hasOwn(base, member)) parts.push(`"${member}":${json}`);
  return `[{${parts.join(',')}}]`;
}

/** The valid `/bc-authorize` form for alice, with overrides (undefined removes a parameter). */
function bcParams(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    scope: 'openid',
    login_hint: 'alice',
    binding_message: 'Refund 1042',
    authorization_details: JSON.stringify([payment({ transaction_id: txn() })]),
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function detailsWith(overrides: Record<string, unknown>): string {
  return JSON.stringify([payment({ transaction_id: txn(), ...overrides })]);
}

/** `text` as UTF-8 with the first `marker` replaced by one raw byte. */
function withRawByte(text: string, marker: string, byte: number): Uint8Array<ArrayBuffer> {
  const [before, after] = [text.slice(0, text.indexOf(marker)), text.slice(text.indexOf(marker) + marker.length)];
  const encoder = new TextEncoder();
  return new Uint8Array([...encoder.encode(before), byte, ...encoder.encode(after)]);
}

function b64url(value: string): string {
  return Buffer.from(value).toString('base64url');
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** One attack: its request, the refusal it must get, and what it may consume by design. */
interface Attack {
  name: string;
  request: (w: World) => Raw | Promise<Raw>;
  status: number;
  /** The exact error code; a list when more than one is right. */
  error: string | string[];
  /** A `WWW-Authenticate` challenge the answer must carry. */
  challenge?: RegExp;
  /** Keys of single-use values this refusal is designed to consume. */
  consumes?: RegExp;
  /** What the `error_description` must say, where a newcomer needs it said plainly. */
  description?: RegExp;
  /** The exact `Allow` header of a 405. */
  allow?: string;
}

// --------------------------------------------------------------------------------------------
// Agent-facing: POST /bc-authorize
// --------------------------------------------------------------------------------------------

const BASIC_CHALLENGE = /^Basic realm=/;
const BEARER_CHALLENGE = /^Bearer /;

function bc(params: Record<string, string> | string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method: 'POST',
      path: '/bc-authorize',
      headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
    };
  };
}

/** A form body from pairs, percent-encoding the values but leaving `raw` pairs as written. */
function formText(params: Record<string, string>, ...raw: string[]): string {
  return [new URLSearchParams(params).toString(), ...raw].filter(Boolean).join('&');
}

const bcContent: Attack[] = [
  { name: 'a JSON body instead of a form', request: (w) => bc(JSON.stringify(bcParams()), { type: JSON_TYPE })(w), status: 415, error: 'invalid_request' },
  { name: 'no content type', request: (w) => ({ ...bc(bcParams())(w), headers: { authorization: basic(w.a) } }), status: 415, error: 'invalid_request' },
  { name: 'text/plain', request: bc(bcParams(), { type: 'text/plain' }), status: 415, error: 'invalid_request' },
  { name: 'multipart/form-data', request: bc('--x\r\ncontent-disposition: form-data; name="scope"\r\n\r\nopenid\r\n--x--', { type: 'multipart/form-data; boundary=x' }), status: 415, error: 'invalid_request' },
  { name: 'a content type that only starts like a form', request: bc(bcParams(), { type: 'application/x-www-form-urlencodedx' }), status: 415, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz) in a value', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%zz1042')), status: 400, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz) in a name', request: bc(formText(bcParams({ scope: undefined }), 'sc%zzope=openid')), status: 400, error: 'invalid_request' },
  { name: 'a truncated percent escape (%4) at the end', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%4')), status: 400, error: 'invalid_request' },
  { name: 'percent-encoded bytes that are not UTF-8 (%ff)', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%ff')), status: 400, error: 'invalid_request' },
  { name: 'an overlong UTF-8 encoding (%c0%af)', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=a%c0%afb')), status: 400, error: 'invalid_request' },
  { name: 'a repeated scope', request: bc(formText(bcParams(), 'scope=openid')), status: 400, error: 'invalid_request' },
  { name: 'a repeated authorization_details', request: bc(formText(bcParams(), `authorization_details=${encodeURIComponent(detailsWith({}))}`)), status: 400, error: 'invalid_request' },
  { name: 'a repeated login_hint (two login hints)', request: bc(formText(bcParams(), 'login_hint=bob')), status: 400, error: 'invalid_request' },
  { name: 'an unknown parameter', request: bc(bcParams({ amount: '1' })), status: 400, error: 'invalid_request' },
  // A plain object would take `__proto__` as its prototype: the parameter dropped, a repeat of it let through.
  { name: 'a __proto__ parameter (unknown like any other)', request: bc(formText(bcParams(), '__proto__=x')), status: 400, error: 'invalid_request' },
  { name: 'a repeated __proto__ parameter', request: bc(formText(bcParams(), '__proto__=x', '__proto__=y')), status: 400, error: 'invalid_request' },
  { name: 'a constructor parameter', request: bc(formText(bcParams(), 'constructor=x')), status: 400, error: 'invalid_request' },
  { name: 'an unknown parameter with a 5,000-character name, not echoed back', request: bc(bcParams({ [`x${'"'.repeat(4999)}`]: '1' })), status: 400, error: 'invalid_request' },
  { name: 'a parameter with an empty name', request: bc(formText(bcParams(), '=openid')), status: 400, error: 'invalid_request' },
  { name: 'an empty form', request: bc(''), status: 400, error: 'invalid_scope' },
  { name: 'a body over 64 KB', request: bc(bcParams({ binding_message: 'x'.repeat(70_000) })), status: 413, error: 'request_too_large' },
  { name: 'a body over 64 KB, streamed without Content-Length', request: (w) => ({ ...bc(bcParams({ binding_message: 'x'.repeat(70_000) }))(w), stream: true }), status: 413, error: 'request_too_large' },
  { name: 'raw bytes that are not UTF-8 in the purpose', request: (w) => ({ ...bc('')(w), bytes: withRawByte(new URLSearchParams(bcParams({ authorization_details: detailsWith({ purpose: 'Refund #' }) })).toString(), '%23', 0xff) }), status: 400, error: 'invalid_request' },
];

const bcAuth: Attack[] = [
  { name: 'no client authentication', request: bc(bcParams(), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: bc(bcParams(), { auth: (w) => basic({ ...w.a, client_secret: `${w.a.client_secret}x` }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: "another client's secret", request: bc(bcParams(), { auth: (w) => basic({ ...w.a, client_secret: w.b.client_secret }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'an unknown client id', request: bc(bcParams(), { auth: (w) => basic({ client_id: 'cli_unknown', client_secret: w.a.client_secret }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: bc(bcParams(), { auth: () => 'Basic !!!not-base64!!!' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header without a colon', request: bc(bcParams(), { auth: () => `Basic ${Buffer.from('no-colon-here').toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header with a malformed percent escape', request: bc(bcParams(), { auth: (w) => `Basic ${Buffer.from(`${w.a.client_id}%zz:${w.a.client_secret}`).toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header of bytes that are not UTF-8', request: bc(bcParams(), { auth: () => `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc0]).toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a 10 KB Basic header', request: bc(bcParams(), { auth: () => `Basic ${'QUFB'.repeat(2560)}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'an empty Authorization header', request: bc(bcParams(), { auth: () => '' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Bearer token instead of client credentials', request: bc(bcParams(), { auth: (w) => `Bearer ${w.approvedToken}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'client_secret_post with a wrong secret', request: (w) => bc(bcParams({ client_id: w.a.client_id, client_secret: 'wrong' }), { auth: () => undefined })(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a client_id without a secret', request: (w) => bc(bcParams({ client_id: w.a.client_id }), { auth: () => undefined })(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'two authentication methods at once', request: (w) => bc(bcParams({ client_id: w.a.client_id, client_secret: w.a.client_secret }))(w), status: 400, error: 'invalid_request' },
  { name: "a form client_id naming another client than the Basic header's", request: (w) => bc(bcParams({ client_id: w.b.client_id }))(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
];

const bcParameters: Attack[] = [
  { name: 'a missing scope', request: bc(bcParams({ scope: undefined })), status: 400, error: 'invalid_scope' },
  { name: 'a scope without openid', request: bc(bcParams({ scope: 'payments' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope that only contains openid as a substring', request: bc(bcParams({ scope: 'openidx' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope with a tab', request: bc(bcParams({ scope: 'openid\tpayments' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope of 600 characters', request: bc(bcParams({ scope: `openid ${'a'.repeat(600)}` })), status: 400, error: 'invalid_scope' },
  { name: 'two login hints (login_hint and id_token_hint)', request: bc(bcParams({ id_token_hint: 'eyJ.x.y' })), status: 400, error: 'invalid_request' },
  { name: 'no login hint', request: bc(bcParams({ login_hint: undefined })), status: 400, error: 'invalid_request' },
  { name: 'login_hint_token instead of login_hint', request: bc(bcParams({ login_hint: undefined, login_hint_token: 'x' })), status: 400, error: 'invalid_request' },
  { name: 'an unknown user', request: bc(bcParams({ login_hint: 'mallory' })), status: 400, error: 'unknown_user_id' },
  { name: 'a user without a device', request: (w) => bc(bcParams({ login_hint: w.deviceless }))(w), status: 400, error: 'unknown_user_id' },
  { name: 'a user of another tenant', request: (w) => bc(bcParams(), { auth: () => basic(w.c) })(w), status: 400, error: 'unknown_user_id' },
  { name: 'a login_hint with braces (a key injection)', request: bc(bcParams({ login_hint: 'alice}:x{' })), status: 400, error: 'unknown_user_id' },
  { name: 'a login_hint of 10 KB', request: bc(bcParams({ login_hint: 'a'.repeat(10_240) })), status: 400, error: 'unknown_user_id' },
  { name: 'a user_code', request: bc(bcParams({ user_code: '1234' })), status: 400, error: 'invalid_request' },
  { name: 'a binding_message with an emoji', request: bc(bcParams({ binding_message: 'Refund 1042 \u{1F4B8}' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a control character', request: bc(bcParams({ binding_message: 'Refund\u00071042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a line break', request: bc(bcParams({ binding_message: 'Refund\n1042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a NUL', request: bc(bcParams({ binding_message: 'Refund\u00001042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a bidi override', request: bc(bcParams({ binding_message: 'Refund \u202E2401' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a zero-width space', request: bc(bcParams({ binding_message: 'Ref\u200Bund' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of 65 characters', request: bc(bcParams({ binding_message: 'a'.repeat(65) })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with Arabic-Indic digits (١٠٤٢ reads as another number)', request: bc(bcParams({ binding_message: 'Refund \u0661\u0660\u0664\u0662' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with fullwidth digits', request: bc(bcParams({ binding_message: 'Refund \uFF11\uFF10\uFF14\uFF12' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a Hangul filler', request: bc(bcParams({ binding_message: 'Refund\u31641042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of 5,000 characters', request: bc(bcParams({ binding_message: 'a'.repeat(5000) })), status: 400, error: 'invalid_binding_message' },
  { name: 'an empty binding_message', request: bc(bcParams({ binding_message: '' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of nothing but spaces', request: bc(bcParams({ binding_message: '   ' })), status: 400, error: 'invalid_binding_message' },
  { name: 'requested_expiry 0', request: bc(bcParams({ requested_expiry: '0' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry -1', request: bc(bcParams({ requested_expiry: '-1' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 1.5', request: bc(bcParams({ requested_expiry: '1.5' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 999999', request: bc(bcParams({ requested_expiry: '999999' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 1e3', request: bc(bcParams({ requested_expiry: '1e3' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry beyond the maximum (601)', request: bc(bcParams({ requested_expiry: '601' })), status: 400, error: 'invalid_request' },
  { name: 'an empty requested_expiry', request: bc(bcParams({ requested_expiry: '' })), status: 400, error: 'invalid_request' },
  { name: 'a client_notification_token with a space', request: bc(bcParams({ client_notification_token: 'a b' })), status: 400, error: 'invalid_request' },
  { name: 'a client_notification_token of 2,000 characters', request: bc(bcParams({ client_notification_token: 'a'.repeat(2000) })), status: 400, error: 'invalid_request' },
  { name: 'a known transaction_id with other details', request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: 'txn_pending_a', amount_minor: 49001 })]) })), status: 409, error: 'transaction_conflict' },
];

const IAD = 'invalid_authorization_details';
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const bcDetails: Attack[] = [
  { name: 'no authorization_details', request: bc(bcParams({ authorization_details: undefined })), status: 400, error: 'invalid_request' },
  { name: 'authorization_details that is not JSON', request: bc(bcParams({ authorization_details: '[{"type":"payment",' })), status: 400, error: IAD },
  { name: 'authorization_details with a trailing comma', request: bc(bcParams({ authorization_details: `${detailsWith({}).slice(0, -1)},]` })), status: 400, error: IAD },
  { name: 'authorization_details as an object, not an array', request: bc(bcParams({ authorization_details: JSON.stringify(payment({ transaction_id: txn() })) })), status: 400, error: IAD },
  { name: 'authorization_details as null', request: bc(bcParams({ authorization_details: 'null' })), status: 400, error: IAD },
  { name: 'authorization_details as a string', request: bc(bcParams({ authorization_details: '"payment"' })), status: 400, error: IAD },
  { name: 'an empty authorization_details array', request: bc(bcParams({ authorization_details: '[]' })), status: 400, error: IAD },
  { name: 'eleven actions', request: bc(bcParams({ authorization_details: JSON.stringify(Array.from({ length: 11 }, () => payment({ transaction_id: txn() }))) })), status: 400, error: IAD },
  { name: 'an array of arrays', request: bc(bcParams({ authorization_details: '[[]]' })), status: 400, error: IAD },
  { name: 'JSON nested 10,000 deep', request: bc(bcParams({ authorization_details: deep(10_000) })), status: 400, error: IAD },
  { name: 'an unknown type', request: bc(bcParams({ authorization_details: detailsWith({ type: 'transfer' }) })), status: 400, error: IAD },
  { name: 'no type', request: bc(bcParams({ authorization_details: detailsWith({ type: undefined }) })), status: 400, error: IAD },
  { name: 'an unknown field', request: bc(bcParams({ authorization_details: detailsWith({ memo: 'x' }) })), status: 400, error: IAD, description: /^authorization_details\[0\]: `memo` is not a member of payment$/ },
  { name: 'an unknown field with a 5,000-character name, not echoed back', request: bc(bcParams({ authorization_details: detailsWith({ [`m${'"'.repeat(4999)}`]: 'x' }) })), status: 400, error: IAD },
  { name: 'an unknown field nested in payee', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME Ltd', iban: 'DE00' } }) })), status: 400, error: IAD },
  { name: 'a __proto__ member', request: bc(bcParams({ authorization_details: rawDetails('__proto__', '{"amount_minor":1}') })), status: 400, error: IAD },
  { name: 'a __proto__ member nested in payee', request: bc(bcParams({ authorization_details: rawDetails('payee', '{"id":"acct_77","name":"ACME Ltd","__proto__":{"admin":true}}') })), status: 400, error: IAD },
  { name: 'a precondition on a record named __proto__ (no executor could state its version)', request: bc(bcParams({ authorization_details: detailsWith({ precondition: { record: '__proto__', version: '17' } }) })), status: 400, error: IAD },
  { name: 'no payee', request: bc(bcParams({ authorization_details: detailsWith({ payee: undefined }) })), status: 400, error: IAD },
  { name: 'payee as a string', request: bc(bcParams({ authorization_details: detailsWith({ payee: 'ACME Ltd' }) })), status: 400, error: IAD },
  { name: 'amount_minor negative', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: -49000 }) })), status: 400, error: IAD },
  { name: 'amount_minor zero', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: 0 }) })), status: 400, error: IAD },
  { name: 'amount_minor negative zero', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '-0') })), status: 400, error: IAD },
  { name: 'amount_minor fractional (490.5)', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: 490.5 }) })), status: 400, error: IAD },
  { name: 'amount_minor as a string "49000"', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: '49000' }) })), status: 400, error: IAD },
  { name: 'amount_minor 1e300', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '1e300') })), status: 400, error: IAD },
  { name: 'amount_minor Number.MAX_SAFE_INTEGER + 2', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', String(BigInt(Number.MAX_SAFE_INTEGER) + 2n)) })), status: 400, error: IAD },
  {
    name: 'two actions in one currency that add up to more than Number.MAX_SAFE_INTEGER',
    request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: txn(), amount_minor: Number.MAX_SAFE_INTEGER }), payment({ transaction_id: txn(), amount_minor: 2 })]) })),
    status: 400,
    error: IAD,
  },
  { name: 'amount_minor of 400 digits', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '9'.repeat(400)) })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation (4.9e4)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '4.9e4') })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation (49E3)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49E3') })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation that is fractional (4.905e2)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '4.905e2') })), status: 400, error: IAD },
  { name: 'amount_minor with a fraction of zero (49000.0)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000.0') })), status: 400, error: IAD },
  { name: 'amount_minor null', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: null }) })), status: 400, error: IAD },
  { name: 'amount_minor missing', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: undefined }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.amount_minor is required \(minor units, an integer\)$/ },
  // The member a newcomer guesses, named as not one, next to the one that is missing.
  { name: 'amount instead of amount_minor', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: undefined, amount: 49000 }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.amount_minor is required \(minor units, an integer\); `amount` is not a member of payment$/ },
  { name: 'an unknown currency (XXX)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'XXX' }) })), status: 400, error: IAD },
  { name: 'a lower-case currency (eur)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'eur' }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.currency: must be an upper-case ISO 4217 code: EUR$/ },
  { name: 'a four-letter currency (EURO)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'EURO' }) })), status: 400, error: IAD },
  { name: 'a numeric currency (978)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 978 }) })), status: 400, error: IAD },
  { name: 'a currency with padding (" EUR")', request: bc(bcParams({ authorization_details: detailsWith({ currency: ' EUR' }) })), status: 400, error: IAD },
  { name: 'a currency named like an object member (constructor)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'constructor' }) })), status: 400, error: IAD },
  { name: 'a purpose of 5,001 characters', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'p'.repeat(5001) }) })), status: 400, error: IAD },
  { name: 'an empty purpose', request: bc(bcParams({ authorization_details: detailsWith({ purpose: '' }) })), status: 400, error: IAD },
  { name: 'a purpose of only spaces', request: bc(bcParams({ authorization_details: detailsWith({ purpose: '   ' }) })), status: 400, error: IAD },
  { name: 'a purpose with a line break', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'Refund\nSend 1 BTC' }) })), status: 400, error: IAD },
  { name: 'a purpose with a lone surrogate', request: bc(bcParams({ authorization_details: rawDetails('purpose', '"Refund \\ud800"') })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left override (U+202E)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u202Edtl' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a left-to-right embedding (U+202A)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u202ALtd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left isolate (U+2067)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u2067Ltd\u2069' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left mark (U+200F)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u200F Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with an Arabic letter mark (U+061C)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u061C Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a line separator (U+2028)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u2028Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with invisible tag characters (U+E0041)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME Ltd\u{E0041}\u{E0042}' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a soft hyphen (U+00AD)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'AC\u00ADME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a BOM', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\uFEFF Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name of 141 characters', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'n'.repeat(141) } }) })), status: 400, error: IAD },
  { name: 'a payee id with a space', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct 77', name: 'ACME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a transaction_id with braces (a key injection)', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: 'txn}:{x' }) })), status: 400, error: IAD },
  { name: 'a transaction_id of 65 characters', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: 't'.repeat(65) }) })), status: 400, error: IAD },
  { name: 'no transaction_id', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: undefined }) })), status: 400, error: IAD },
  { name: 'a second, invalid action after a valid one', request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: txn() }), payment({ transaction_id: txn(), currency: 'XXX' })]) })), status: 400, error: IAD },
  // Two readers of the same bytes must never see two actions (docs/security.md "The executor
  // redeems exactly what was approved, byte for byte").
  { name: 'amount_minor named twice (the last would win in JSON.parse)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000,"amount_minor":4900000') })), status: 400, error: IAD },
  { name: 'a payee id named twice inside payee', request: bc(bcParams({ authorization_details: rawDetails('payee', '{"id":"acct_77","name":"ACME Ltd","id":"acct_666"}') })), status: 400, error: IAD },
  { name: 'a member named twice, once spelled with an escape ("\\u0061mount_minor")', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000,"\\u0061mount_minor":1') })), status: 400, error: IAD },
  { name: 'a payee name with a Hangul filler (U+3164)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u3164Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a braille blank (U+2800)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u2800Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a Mongolian vowel separator (U+180E)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u180ELtd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a run of combining marks (Zalgo)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'AC\u0301\u0302\u0303\u0304\u0305\u0306ME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name mixing a Cyrillic а into Latin (a confusable)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'P\u0430yPal Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in fullwidth letters (ＡＣＭＥ)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\uFF21\uFF23\uFF2D\uFF25 Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in mathematical bold letters', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u{1D400}\u{1D402}\u{1D40C}\u{1D404} Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in small capitals (ᴀᴄᴍᴇ)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u1D00\u1D04\u1D0D\u1D07 Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a Latin alpha (ɑ, IPA Extensions)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u0251CME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name starting with a combining mark', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u0301ACME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a purpose with a zero-width joiner', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'Refund\u200Dfor order 1042' }) })), status: 400, error: IAD },
];

// --------------------------------------------------------------------------------------------
// Agent-facing: POST /token
// --------------------------------------------------------------------------------------------

const CIBA = 'urn:openid:params:grant-type:ciba';

function token(params: (w: World) => Record<string, string> | string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const value = params(w);
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method: 'POST',
      path: '/token',
      headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof value === 'string' ? value : new URLSearchParams(value).toString(),
    };
  };
}

const tokenAttacks: Attack[] = [
  { name: 'a JSON body instead of a form', request: token((w) => JSON.stringify({ grant_type: CIBA, auth_req_id: w.approvedA }), { type: JSON_TYPE }), status: 415, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz)', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}%zz`), status: 400, error: 'invalid_request' },
  { name: 'a repeated auth_req_id', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.pendingA}&auth_req_id=${w.approvedA}`), status: 400, error: 'invalid_request' },
  { name: 'a repeated grant_type', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}`), status: 400, error: 'invalid_request' },
  { name: 'a repeated __proto__ parameter', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}&__proto__=x&__proto__=y`), status: 400, error: 'invalid_request' },
  { name: 'no client authentication', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: (w) => basic({ ...w.a, client_secret: 'wrong' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: () => 'Basic ===' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'no grant_type', request: token((w) => ({ auth_req_id: w.approvedA })), status: 400, error: 'invalid_request' },
  { name: 'a non-CIBA grant_type (authorization_code)', request: token((w) => ({ grant_type: 'authorization_code', auth_req_id: w.approvedA, code: 'x' })), status: 400, error: 'unsupported_grant_type' },
  { name: 'a non-CIBA grant_type (client_credentials)', request: token(() => ({ grant_type: 'client_credentials' })), status: 400, error: 'unsupported_grant_type' },
  { name: 'a CIBA grant_type with a trailing space', request: token((w) => ({ grant_type: `${CIBA} `, auth_req_id: w.approvedA })), status: 400, error: 'unsupported_grant_type' },
  { name: 'no auth_req_id', request: token(() => ({ grant_type: CIBA })), status: 400, error: 'invalid_request' },
  { name: 'an auth_req_id of 10 KB', request: token(() => ({ grant_type: CIBA, auth_req_id: 'A'.repeat(10_240) })), status: 400, error: 'invalid_grant' },
  { name: 'an unknown auth_req_id', request: token(() => ({ grant_type: CIBA, auth_req_id: 'x'.repeat(43) })), status: 400, error: 'invalid_grant' },
  { name: 'an auth_req_id with braces (a key injection)', request: token((w) => ({ grant_type: CIBA, auth_req_id: `${w.approvedA}}:{x` })), status: 400, error: 'invalid_grant' },
  { name: "another client's auth_req_id", request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: (w) => basic(w.b) }), status: 400, error: 'invalid_grant' },
  { name: "another tenant's client polling an auth_req_id", request: token((w) => ({ grant_type: CIBA, auth_req_id: w.pendingA }), { auth: (w) => basic(w.c) }), status: 400, error: 'invalid_grant' },
  { name: 'a body over 64 KB', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA, pad: 'x'.repeat(70_000) })), status: 413, error: 'request_too_large' },
];

// --------------------------------------------------------------------------------------------
// Executor-facing: POST /redeem, POST /redemptions/{id}/outcome, GET and POST /requests/{id}
// --------------------------------------------------------------------------------------------

function json(method: string, path: (w: World) => string, body: (w: World) => unknown, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const value = body(w);
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method,
      path: path(w),
      headers: { 'content-type': options.type ?? JSON_TYPE, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof value === 'string' ? value : JSON.stringify(value),
    };
  };
}

const APPROVED_DETAILS = [payment({ transaction_id: 'txn_approved_a' })];
const redeemPath = () => '/redeem';
const redeemBody =
  (overrides: Record<string, unknown> = {}) =>
  (w: World) => ({ token: w.approvedToken, authorization_details: APPROVED_DETAILS, ...overrides });

/** An unsigned (`alg: none`) copy of the approval token's claims. */
function unsignedToken(w: World): string {
  const payload = w.approvedToken.split('.')[1]!;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  return `${b64url(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${b64url(JSON.stringify(claims))}.`;
}

/** The approval token with its payload moved to client B and the original signature kept. */
function tamperedToken(w: World): string {
  const [header, payload, signature] = w.approvedToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
  return `${header}.${b64url(JSON.stringify({ ...claims, client_id: w.b.client_id }))}.${signature}`;
}

const redeemAttacks: Attack[] = [
  { name: 'no client authentication', request: json('POST', redeemPath, redeemBody(), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic({ ...w.a, client_secret: 'wrong' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: json('POST', redeemPath, redeemBody(), { auth: () => 'Basic %%%' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a form body instead of JSON', request: json('POST', redeemPath, (w) => new URLSearchParams({ token: w.approvedToken }).toString(), { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'no content type', request: (w) => ({ ...json('POST', redeemPath, redeemBody())(w), headers: { authorization: basic(w.a) } }), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: json('POST', redeemPath, () => '{"token": '), status: 400, error: 'invalid_request' },
  { name: 'JSON with a trailing comma', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}",}`), status: 400, error: 'invalid_request' },
  { name: 'an empty body', request: json('POST', redeemPath, () => ''), status: 400, error: 'invalid_request' },
  { name: 'a JSON array where an object is expected', request: json('POST', redeemPath, (w) => [redeemBody()(w)]), status: 400, error: 'invalid_request' },
  { name: 'JSON null', request: json('POST', redeemPath, () => 'null'), status: 400, error: 'invalid_request' },
  { name: 'a JSON string', request: json('POST', redeemPath, (w) => JSON.stringify(w.approvedToken)), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: json('POST', redeemPath, redeemBody({ amount_minor: 1 })), status: 400, error: 'invalid_request' },
  { name: 'current_versions naming __proto__ (a plain object would drop it)', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS)},"current_versions":{"__proto__":"17"}}`), status: 400, error: 'invalid_request' },
  { name: 'an unknown field with a 5,000-character name, not echoed back', request: json('POST', redeemPath, redeemBody({ [`u${'\\'.repeat(4999)}`]: 1 })), status: 400, error: 'invalid_request' },
  { name: 'no token', request: json('POST', redeemPath, () => ({ authorization_details: APPROVED_DETAILS })), status: 400, error: 'invalid_request' },
  { name: 'an empty token', request: json('POST', redeemPath, redeemBody({ token: '' })), status: 400, error: 'invalid_request' },
  { name: 'a token that is a number', request: json('POST', redeemPath, redeemBody({ token: 1 })), status: 400, error: 'invalid_request' },
  // An approval token carries its action, so one of 10 KB is allowed in form: this one is not a JWT.
  { name: 'a token of 10 KB that is not a JWT', request: json('POST', redeemPath, redeemBody({ token: 'a'.repeat(10_240) })), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a body over 64 KB (a token that long)', request: json('POST', redeemPath, redeemBody({ token: 'a'.repeat(70_000) })), status: 413, error: 'request_too_large' },
  { name: 'a token that is not a JWT', request: json('POST', redeemPath, redeemBody({ token: 'not-a-jwt' })), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'an unsigned token (alg none)', request: json('POST', redeemPath, (w) => redeemBody({ token: unsignedToken(w) })(w)), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a token whose claims were changed after signing', request: json('POST', redeemPath, (w) => redeemBody({ token: tamperedToken(w) })(w)), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a token from another client', request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic(w.b) }), status: 403, error: 'unauthorized_client' },
  { name: "a token from another tenant's client", request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic(w.c) }), status: 403, error: 'unauthorized_client' },
  { name: 'an amount one minor unit higher', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', amount_minor: 49001 })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details with an unknown field', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', memo: 'x' })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details as an object, not an array', request: json('POST', redeemPath, redeemBody({ authorization_details: APPROVED_DETAILS[0] })), status: 400, error: 'approval_mismatch' },
  { name: 'no details', request: json('POST', redeemPath, (w) => ({ token: w.approvedToken })), status: 400, error: 'invalid_request' },
  // The executor redeems exactly what was approved, byte for byte (docs/security.md).
  { name: 'a body with token named twice', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS)}}`), status: 400, error: 'invalid_request' },
  { name: 'details with amount_minor named twice', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS).replace('"amount_minor":49000', '"amount_minor":49000,"amount_minor":49000')}}`), status: 400, error: 'invalid_request' },
  { name: 'the approved amount spelled 49000.0', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS).replace('"amount_minor":49000', '"amount_minor":49000.0')}}`), status: 400, error: 'approval_mismatch' },
  { name: 'the approved payee name with a trailing space', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', payee: { id: 'acct_77', name: 'ACME Ltd ' } })] })), status: 400, error: 'approval_mismatch' },
  { name: 'the approved purpose with two spaces where it has one', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'Refund  for order 1042' })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details nested 10,000 deep', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${deep(10_000)}}`), status: 400, error: 'approval_mismatch' },
  { name: 'a body over 64 KB', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'x'.repeat(70_000) })] })), status: 413, error: 'request_too_large' },
  { name: 'a body over 64 KB, streamed without Content-Length', request: (w) => ({ ...json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'x'.repeat(70_000) })] }))(w), stream: true }), status: 413, error: 'request_too_large' },
];

const outcomePath = (w: World) => `/redemptions/${w.redemptionA}/outcome`;
const outcomeAttacks: Attack[] = [
  { name: 'no client authentication', request: json('POST', outcomePath, () => ({ status: 'succeeded' }), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: json('POST', outcomePath, () => ({ status: 'succeeded' }), { auth: (w) => basic({ ...w.a, client_secret: 'x' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  {
    name: 'an unknown redemption',
    request: json(
      'POST',
      () => `/redemptions/rdm_${'u'.repeat(22)}/outcome`,
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'a redemption id of 10 KB',
    request: json(
      'POST',
      () => `/redemptions/rdm_${'u'.repeat(10_240)}/outcome`,
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'a redemption id with a malformed percent escape',
    request: json(
      'POST',
      () => '/redemptions/rdm_%zz/outcome',
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  // The id names its request; its random part must still be the stored one.
  {
    name: 'the right request with another random part',
    request: json(
      'POST',
      (w) => `/redemptions/${w.redemptionA.replace(/^rdm_[^.]+/, `rdm_${'f'.repeat(22)}`)}/outcome`,
      () => ({ status: 'failed' }),
    ),
    status: 404,
    error: 'not_found',
  },
  { name: "another client's redemption", request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'hijacked' }), { auth: (w) => basic(w.b) }), status: 404, error: 'not_found' },
  { name: "another tenant's client's report", request: json('POST', outcomePath, () => ({ status: 'failed' }), { auth: (w) => basic(w.c) }), status: 404, error: 'not_found' },
  { name: 'a form body instead of JSON', request: json('POST', outcomePath, () => 'status=succeeded', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: json('POST', outcomePath, () => '{status: succeeded}'), status: 400, error: 'invalid_request' },
  { name: 'a JSON array where an object is expected', request: json('POST', outcomePath, () => [{ status: 'succeeded' }]), status: 400, error: 'invalid_request' },
  { name: 'an unknown status', request: json('POST', outcomePath, () => ({ status: 'maybe' })), status: 400, error: 'invalid_request' },
  { name: 'the status unknown', request: json('POST', outcomePath, () => ({ status: 'unknown' })), status: 400, error: 'invalid_request' },
  { name: 'no status', request: json('POST', outcomePath, () => ({ reference: 'ref_1' })), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: json('POST', outcomePath, () => ({ status: 'succeeded', amount_minor: 1 })), status: 400, error: 'invalid_request' },
  { name: 'a reference of 201 characters', request: json('POST', outcomePath, () => ({ status: 'succeeded', reference: 'r'.repeat(201) })), status: 400, error: 'invalid_request' },
  { name: 'a reason of 501 characters', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'r'.repeat(501) })), status: 400, error: 'invalid_request' },
  { name: 'a reason with a bidi override (shown to the person)', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'refund \u202Edeliated' })), status: 400, error: 'invalid_request' },
  { name: 'a reason with control characters (shown to the person)', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'ok\u001b[2J\u0007' })), status: 400, error: 'invalid_request' },
  { name: 'a reason holding bytes that are not UTF-8', request: (w) => ({ ...json('POST', outcomePath, () => ({ status: 'failed', reason: 'declined #' }))(w), bytes: withRawByte(JSON.stringify({ status: 'failed', reason: 'declined #' }), '#', 0xc0) }), status: 400, error: 'invalid_request' },
  { name: 'a reference with a line break', request: json('POST', outcomePath, () => ({ status: 'succeeded', reference: 're_1\nPaid twice' })), status: 400, error: 'invalid_request' },
];

function get(path: (w: World) => string, auth: (w: World) => string | undefined = (w) => basic(w.a)) {
  return (w: World): Raw => {
    const value = auth(w);
    return { method: 'GET', path: path(w), headers: value === undefined ? {} : { authorization: value } };
  };
}

const requestViewAttacks: Attack[] = [
  {
    name: 'no client authentication',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      () => undefined,
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'a wrong client secret',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic({ ...w.a, client_secret: 'x' }),
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'Basic header garbage',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      () => 'Basic',
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  { name: 'an unknown auth_req_id', request: get(() => `/requests/${'u'.repeat(43)}`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id of 10 KB', request: get(() => `/requests/${'u'.repeat(10_240)}`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id with encoded braces', request: get((w) => `/requests/${w.pendingA}%7D%3A%7Bx`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id with a malformed percent escape', request: get(() => '/requests/%zz%E0%A4%A'), status: 404, error: 'not_found' },
  {
    name: "another client's auth_req_id",
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic(w.b),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: "another tenant's client",
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic(w.c),
    ),
    status: 404,
    error: 'not_found',
  },
];

/** `POST /requests/{id}`: the same view, its client authentication in a form. */
function postView(path: (w: World) => string, form: (w: World) => string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : undefined;
    return { method: 'POST', path: path(w), headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) }, body: form(w) };
  };
}
const secretForm = (client: (w: World) => { client_id: string; client_secret: string }) => (w: World) => new URLSearchParams(client(w)).toString();

const postViewAttacks: Attack[] = [
  {
    name: 'no client authentication',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '',
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'a JSON body instead of a form',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      (w) => JSON.stringify(w.a),
      { type: JSON_TYPE },
    ),
    status: 415,
    error: 'invalid_request',
  },
  {
    name: 'a parameter that is not client authentication',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => 'state=approved',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a __proto__ parameter',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '__proto__=x',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a repeated __proto__ parameter',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '__proto__=x&__proto__=y',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a repeated client_id',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      (w) => `${secretForm((x) => x.a)(w)}&client_id=${w.b.client_id}`,
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'client_secret_post for a client_secret_basic client',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      secretForm((w) => w.a),
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: "another client's auth_req_id",
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '',
      { auth: (w) => basic(w.b) },
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'an auth_req_id of 10 KB',
    request: postView(
      () => `/requests/${'u'.repeat(10_240)}`,
      () => '',
      { auth: (w) => basic(w.a) },
    ),
    status: 404,
    error: 'not_found',
  },
];

// --------------------------------------------------------------------------------------------
// Device-facing: /api/device/*
// --------------------------------------------------------------------------------------------

interface DeviceCall {
  method: string;
  path: string;
  body?: unknown;
  /** A session cookie; none by default. */
  as?: EnrolledUser | string;
  /** `Origin`; PUBLIC_URL by default, null for none. */
  origin?: string | null;
  type?: string | null;
}

function device(call: (w: World) => DeviceCall | Promise<DeviceCall>) {
  return async (w: World): Promise<Raw> => {
    const spec = await call(w);
    const headers: Record<string, string> = {};
    const origin = spec.origin === undefined ? w.h.issuer : spec.origin;
    if (origin !== null) headers.origin = origin;
    if (spec.as !== undefined) headers.cookie = typeof spec.as === 'string' ? spec.as : spec.as.cookie;
    if (spec.body !== undefined && spec.type !== null) headers['content-type'] = spec.type ?? JSON_TYPE;
    return {
      method: spec.method,
      path: `/api/device${spec.path}`,
      headers,
      ...(spec.body === undefined ? {} : { body: typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body) }),
    };
  };
}

/** A fresh enrollment for a new user, with registration options already asked for. */
async function freshEnrollment(w: World): Promise<{ code: string; options: any }> {
  const sub = `enrollee_${txn()}`;
  await w.h.admin('POST', '/users', { sub });
  const code = (await w.h.admin('POST', `/users/${sub}/enrollments`)).body.enrollment_code as string;
  const options = await w.h.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: w.h.issuer } });
  return { code, options: options.body };
}

const EVIL = 'https://evil.example';

const enrollAttacks: Attack[] = [
  { name: 'options without Origin', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'options from another Origin', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: EVIL })), status: 403, error: 'invalid_origin' },
  { name: 'options from Origin null', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: 'null' })), status: 403, error: 'invalid_origin' },
  { name: 'options from an Origin that only starts like PUBLIC_URL', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: `${w.h.issuer}.evil.example` })), status: 403, error: 'invalid_origin' },
  { name: 'options with a reused code', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with an unknown code', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(32) } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with a code with braces (a key injection)', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: `${w.usedCode}}:{x` } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with a code of 10 KB', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(10_240) } })), status: 400, error: 'invalid_request' },
  { name: 'options with a code that is a number', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 12345678 } })), status: 400, error: 'invalid_request' },
  { name: 'options with an unknown field', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode, sub: 'alice' } })), status: 400, error: 'invalid_request' },
  { name: 'options with JSON that is not valid', request: device(() => ({ method: 'POST', path: '/enroll/options', body: '{"enrollment_code":' })), status: 400, error: 'invalid_request' },
  { name: 'options with a JSON array', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: [{ enrollment_code: w.usedCode }] })), status: 400, error: 'invalid_request' },
  { name: 'options with a form body', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: `enrollment_code=${w.usedCode}`, type: FORM })), status: 415, error: 'invalid_request' },
  { name: 'options with no content type', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, type: null })), status: 415, error: 'invalid_request' },
  { name: 'options with a body over 64 KB', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(70_000) } })), status: 413, error: 'request_too_large' },
  { name: 'verify without Origin', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {} }, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'verify with a reused code', request: device((w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: w.usedCode, response: { id: 'x' } } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'verify with an unknown code', request: device(() => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: 'u'.repeat(32), response: { id: 'x' } } })), status: 400, error: 'invalid_enrollment_code' },
  {
    name: 'verify with a garbage response (the code is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: { id: 'x', response: { clientDataJSON: '!!!' } } } })),
    status: 400,
    error: 'invalid_assertion',
    consumes: /^enroll:\{/,
  },
  {
    name: 'verify with a registration made for another origin (the code is spent, by design)',
    request: device(async (w) => {
      const { code, options } = await freshEnrollment(w);
      const phone = createSoftAuthenticator({ origin: EVIL, rpId: new URL(w.h.issuer).hostname });
      return { method: 'POST', path: '/enroll/verify', body: { enrollment_code: code, response: await phone.register(options) } };
    }),
    status: 400,
    error: 'invalid_assertion',
    consumes: /^enroll:\{/,
  },
  ...(
    [
      ['7,000 transports', Array(7000).fill('usb')],
      ['a transport name of 5,000 characters', ['x'.repeat(5000)]],
      ['transports that are a string', 'usb'],
    ] as const
  ).map(
    ([what, transports]): Attack => ({
      name: `verify with ${what} (refused before the code is spent)`,
      request: device(async (w) => {
        const { code, options } = await freshEnrollment(w);
        const registration = await createSoftAuthenticator({ origin: w.h.issuer, rpId: new URL(w.h.issuer).hostname }).register(options);
        return { method: 'POST', path: '/enroll/verify', body: { enrollment_code: code, response: { ...registration, response: { ...registration.response, transports } } } };
      }),
      status: 400,
      error: 'invalid_request',
    }),
  ),
  { name: 'verify with a response that is a string (refused before the code is spent)', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: 'garbage' } })), status: 400, error: 'invalid_request' },
  { name: 'verify without a response', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code } })), status: 400, error: 'invalid_request' },
  { name: 'verify with a device name with a bidi override', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, device_name: 'Phone \u202Eenohp' } })), status: 400, error: 'invalid_request' },
  { name: 'verify with a device name of 65 characters', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, device_name: 'd'.repeat(65) } })), status: 400, error: 'invalid_request' },
  { name: 'verify with an unknown field', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, sub: 'alice' } })), status: 400, error: 'invalid_request' },
  { name: 'verify with JSON that is not valid', request: device(() => ({ method: 'POST', path: '/enroll/verify', body: '{' })), status: 400, error: 'invalid_request' },
];

const SUBSCRIPTION = {
  endpoint: 'https://push.example/send/abc',
  expirationTime: null,
  keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
};

function subscribe(body: unknown, options: Partial<DeviceCall> = {}) {
  return device((w) => ({ method: 'PUT', path: '/push-subscription', body, as: w.alice, ...options }));
}

const pushAttacks: Attack[] = [
  { name: 'no session cookie', request: subscribe(SUBSCRIPTION, { as: undefined }), status: 401, error: 'login_required' },
  { name: 'an unknown session cookie', request: subscribe(SUBSCRIPTION, { as: `cs_device=${'s'.repeat(43)}` }), status: 401, error: 'login_required' },
  { name: 'a session cookie of 10 KB', request: subscribe(SUBSCRIPTION, { as: `cs_device=${'s'.repeat(10_240)}` }), status: 401, error: 'login_required' },
  { name: 'a session cookie with braces (a key injection)', request: subscribe(SUBSCRIPTION, { as: 'cs_device=abc}:{x' }), status: 401, error: 'login_required' },
  { name: 'a session but no Origin', request: subscribe(SUBSCRIPTION, { origin: null }), status: 403, error: 'invalid_origin' },
  { name: 'a session from another Origin', request: subscribe(SUBSCRIPTION, { origin: EVIL }), status: 403, error: 'invalid_origin' },
  { name: 'no session and no Origin', request: subscribe(SUBSCRIPTION, { as: undefined, origin: null }), status: 403, error: 'invalid_origin' },
  { name: 'an http: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'http://push.example/send/abc' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint on the metadata service over http:', request: subscribe({ ...SUBSCRIPTION, endpoint: 'http://169.254.169.254/latest/meta-data' }), status: 400, error: 'invalid_request' },
  { name: 'a javascript: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'javascript:alert(1)' }), status: 400, error: 'invalid_request' },
  { name: 'a file: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'file:///etc/passwd' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint with credentials', request: subscribe({ ...SUBSCRIPTION, endpoint: 'https://user:pass@push.example/send/abc' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint that is not a URL', request: subscribe({ ...SUBSCRIPTION, endpoint: 'not a url' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint of 3,000 characters', request: subscribe({ ...SUBSCRIPTION, endpoint: `https://push.example/${'e'.repeat(3000)}` }), status: 400, error: 'invalid_request' },
  { name: 'missing keys', request: subscribe({ endpoint: SUBSCRIPTION.endpoint }), status: 400, error: 'invalid_request' },
  { name: 'a missing auth key', request: subscribe({ ...SUBSCRIPTION, keys: { p256dh: SUBSCRIPTION.keys.p256dh } }), status: 400, error: 'invalid_request' },
  { name: 'a p256dh that is not base64url', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, p256dh: `${'+'.repeat(87)}` } }), status: 400, error: 'invalid_request' },
  { name: 'an auth secret of 10 KB', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, auth: 'A'.repeat(10_240) } }), status: 400, error: 'invalid_request' },
  { name: 'an extra field', request: subscribe({ ...SUBSCRIPTION, device_id: 'dev_other' }), status: 400, error: 'invalid_request' },
  { name: 'an extra field in keys', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, extra: 'x' } }), status: 400, error: 'invalid_request' },
  { name: 'a negative expirationTime', request: subscribe({ ...SUBSCRIPTION, expirationTime: -1 }), status: 400, error: 'invalid_request' },
  { name: 'an expirationTime that is a string', request: subscribe({ ...SUBSCRIPTION, expirationTime: 'tomorrow' }), status: 400, error: 'invalid_request' },
  { name: 'a JSON array', request: subscribe([SUBSCRIPTION]), status: 400, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: subscribe('{"endpoint":'), status: 400, error: 'invalid_request' },
  { name: 'a form body', request: subscribe('endpoint=https%3A%2F%2Fpush.example', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a body over 64 KB', request: subscribe({ ...SUBSCRIPTION, endpoint: `https://push.example/${'e'.repeat(70_000)}` }), status: 413, error: 'request_too_large' },
];

/** Alice's own, valid, signed approval of her pending request, taken from the real device API. */
async function aliceAssertion(w: World, decision: 'approve' | 'deny' = 'approve', overrides: Parameters<EnrolledUser['authenticator']['authenticate']>[1] = {}) {
  const view = await w.h.call('GET', `/api/device/requests/${w.pendingA}`, { headers: { cookie: w.alice.cookie } });
  return w.alice.authenticator.authenticate(view.body.options[decision], overrides);
}

/** Bob's own, valid, signed approval of his own pending request. */
async function bobAssertion(w: World) {
  const view = await w.h.call('GET', `/api/device/requests/${w.pendingBob}`, { headers: { cookie: w.bob.cookie } });
  return w.bob.authenticator.authenticate(view.body.options.approve);
}

const decisionPath = (w: World) => `/requests/${w.pendingA}/decision`;
const CHALLENGES = /^chl:\{/;
/** A clientDataJSON naming a well-formed challenge that the server never issued. */
const unissuedChallenge = () => b64url(JSON.stringify({ type: 'webauthn.get', challenge: 'c'.repeat(43), origin: 'http://localhost:8080' }));

const deviceReadAttacks: Attack[] = [
  { name: 'the inbox without a session', request: device(() => ({ method: 'GET', path: '/requests' })), status: 401, error: 'login_required' },
  { name: 'the inbox with an unknown session', request: device(() => ({ method: 'GET', path: '/requests', as: `cs_device=${'s'.repeat(43)}` })), status: 401, error: 'login_required' },
  { name: 'the inbox with an empty cookie', request: device(() => ({ method: 'GET', path: '/requests', as: 'cs_device=' })), status: 401, error: 'login_required' },
  { name: 'me without a session', request: device(() => ({ method: 'GET', path: '/me' })), status: 401, error: 'login_required' },
  { name: 'the event stream without a session', request: device(() => ({ method: 'GET', path: '/events' })), status: 401, error: 'login_required' },
  { name: 'a request without a session', request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}` })), status: 401, error: 'login_required' },
  { name: "another user's request", request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}`, as: w.bob })), status: 404, error: 'not_found' },
  { name: 'an unknown request', request: device((w) => ({ method: 'GET', path: `/requests/${'u'.repeat(43)}`, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id of 10 KB', request: device((w) => ({ method: 'GET', path: `/requests/${'u'.repeat(10_240)}`, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id with a malformed percent escape', request: device((w) => ({ method: 'GET', path: '/requests/%zz', as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id with an encoded brace', request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}%7D`, as: w.bob })), status: 404, error: 'not_found' },
];

const decisionAttacks: Attack[] = [
  { name: 'no session', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} } })), status: 401, error: 'login_required' },
  { name: 'a session but no Origin', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.alice, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'a session from another Origin', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.alice, origin: EVIL })), status: 403, error: 'invalid_origin' },
  { name: 'a form body', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: 'decision=approve', as: w.alice, type: FORM })), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: '{"decision":"approve",', as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a JSON array', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: [{ decision: 'approve', response: {} }], as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'an unknown decision', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'maybe', response: await aliceAssertion(w) }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w), amount_minor: 1 }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (a string)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: 'garbage' }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (an array)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: [1, 2, 3] }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (an empty object)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a garbage response (clientDataJSON not base64url)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { id: 'x', response: { clientDataJSON: '!!!', authenticatorData: 7 } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a garbage response (clientDataJSON not JSON)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { response: { clientDataJSON: b64url('{{{') } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a challenge the server never issued', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { id: w.alice.authenticator.credentialId, response: { clientDataJSON: unissuedChallenge() } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  {
    name: 'an approve assertion sent as deny (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'deny', response: await aliceAssertion(w, 'approve') }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion without user verification (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w, 'approve', { userVerified: false }) }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion from another origin (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w, 'approve', { origin: EVIL }) }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion with its signature cut (the challenge is spent, by design)',
    request: device(async (w) => {
      const assertion = await aliceAssertion(w);
      return { method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { ...assertion, response: { ...assertion.response, signature: assertion.response.signature.slice(0, 20) } } }, as: w.alice };
    }),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  { name: "a decision for another user's request, with garbage", request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} }, as: w.bob })), status: 400, error: 'invalid_assertion' },
  {
    name: "a decision for another user's request, signed over one's own request (the challenge is spent, by design)",
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await bobAssertion(w) }, as: w.bob })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: "a decision for another user's request, with that user's own assertion replayed (the challenge is spent, by design)",
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.bob })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  { name: 'a decision for an unknown request', request: device((w) => ({ method: 'POST', path: `/requests/${'u'.repeat(43)}/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: ['invalid_assertion', 'not_found'] },
  { name: 'a decision for a request id of 10 KB', request: device((w) => ({ method: 'POST', path: `/requests/${'u'.repeat(10_240)}/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a decision for a request id with braces (a key injection)', request: device((w) => ({ method: 'POST', path: `/requests/${w.pendingA}%7D%3Ax/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a body over 64 KB', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { pad: 'x'.repeat(70_000) } }, as: w.alice })), status: 413, error: 'request_too_large' },
];

// --------------------------------------------------------------------------------------------
// Operator-facing: /api/admin/*
// --------------------------------------------------------------------------------------------

function admin(method: string, path: (w: World) => string, body?: unknown, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : `Bearer ${w.h.adminToken}`;
    const headers: Record<string, string> = auth === undefined ? {} : { authorization: auth };
    if (body !== undefined) headers['content-type'] = options.type ?? JSON_TYPE;
    return { method, path: `/api/admin${path(w)}`, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) };
  };
}

/** Every admin route, each without a token, with a wrong one, and with another scheme. */
const ADMIN_ROUTES: [string, (w: World) => string, unknown][] = [
  ['POST /clients', () => '/clients', { name: 'Intruder' }],
  ['POST /users', () => '/users', { sub: 'intruder' }],
  ['POST /users/{sub}/enrollments', () => '/users/alice/enrollments', undefined],
  ['GET /requests/{id}', (w) => `/requests/${w.pendingA}`, undefined],
  ['GET /audit', (w) => `/audit?auth_req_id=${w.pendingA}`, undefined],
];

const adminAuthAttacks: Attack[] = ADMIN_ROUTES.flatMap(([route, path, body]): Attack[] => {
  const method = route.split(' ')[0]!;
  return [
    { name: `${route} without a bearer token`, request: admin(method, path, body, { auth: () => undefined }), status: 401, error: ['invalid_token', 'invalid_request'], challenge: BEARER_CHALLENGE },
    { name: `${route} with a wrong bearer token`, request: admin(method, path, body, { auth: (w) => `Bearer ${w.h.adminToken.slice(0, -1)}x` }), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
    { name: `${route} with a client's Basic credentials`, request: admin(method, path, body, { auth: (w) => basic(w.a) }), status: 400, error: 'invalid_request', challenge: BEARER_CHALLENGE },
    { name: `${route} with a bearer token of 10 KB`, request: admin(method, path, body, { auth: () => `Bearer ${'t'.repeat(10_240)}` }), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  ];
});

const adminBodyAttacks: Attack[] = [
  { name: 'a client with an unknown field', request: admin('POST', () => '/clients', { name: 'Agent', secret: 'chosen' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (upper case)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 'Default' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (braces, a key injection)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 'a}:{b' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (41 characters)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 't'.repeat(41) }), status: 400, error: 'invalid_request' },
  { name: 'a client with an empty name', request: admin('POST', () => '/clients', { name: '' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a name of 81 characters', request: admin('POST', () => '/clients', { name: 'n'.repeat(81) }), status: 400, error: 'invalid_request' },
  { name: 'a client with a bidi override in its name (shown to the person)', request: admin('POST', () => '/clients', { name: 'Support \u202Etnega' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an unknown delivery mode', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'pigeon' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a ftp: notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'ftp://agent.example/cb' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a notification endpoint that is not a URL', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'not a url' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a remote http: notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'http://agent.example/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with a cloud metadata notification endpoint over http', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://169.254.169.254/latest/meta-data/' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with a decimal-spelled private notification endpoint over http', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://167772161/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with user:pass@ in its notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://agent:s3cret@localhost:9/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a ping client without a notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping' }), status: 400, error: 'invalid_request' },
  { name: 'a client as a JSON array', request: admin('POST', () => '/clients', [{ name: 'Agent' }]), status: 400, error: 'invalid_request' },
  { name: 'a client with JSON that is not valid', request: admin('POST', () => '/clients', '{"name":'), status: 400, error: 'invalid_request' },
  { name: 'a client with a form body', request: admin('POST', () => '/clients', 'name=Agent', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a client with a body over 64 KB', request: admin('POST', () => '/clients', { name: 'n'.repeat(70_000) }), status: 413, error: 'request_too_large' },
  { name: 'a user with an unknown field', request: admin('POST', () => '/users', { sub: 'newcomer', role: 'admin' }), status: 400, error: 'invalid_request' },
  { name: 'a user with an invalid tenant', request: admin('POST', () => '/users', { sub: 'newcomer', tenant: '../other' }), status: 400, error: 'invalid_request' },
  { name: 'a user whose sub has braces (a key injection)', request: admin('POST', () => '/users', { sub: 'alice}:{x' }), status: 400, error: 'invalid_request' },
  { name: 'a user whose sub is 129 characters', request: admin('POST', () => '/users', { sub: 's'.repeat(129) }), status: 400, error: 'invalid_request' },
  { name: 'a user without a sub', request: admin('POST', () => '/users', { display_name: 'Nobody' }), status: 400, error: 'invalid_request' },
  { name: 'a user with a control character in the display name', request: admin('POST', () => '/users', { sub: 'newcomer', display_name: 'New\u0000comer' }), status: 400, error: 'invalid_request' },
  { name: 'a user as a JSON array', request: admin('POST', () => '/users', [{ sub: 'newcomer' }]), status: 400, error: 'invalid_request' },
  { name: 'a user with a form body', request: admin('POST', () => '/users', 'sub=newcomer', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'an enrollment for an unknown user', request: admin('POST', () => '/users/mallory/enrollments'), status: 404, error: 'not_found' },
  { name: 'an enrollment for a sub with braces', request: admin('POST', () => '/users/alice%7D%3A%7Bx/enrollments'), status: 404, error: 'not_found' },
  { name: 'an enrollment for a sub of 10 KB', request: admin('POST', () => `/users/${'s'.repeat(10_240)}/enrollments`), status: 404, error: 'not_found' },
  { name: 'an enrollment with an unknown field', request: admin('POST', () => '/users/alice/enrollments', { tenant: 'default', sub: 'bob' }), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with an invalid tenant', request: admin('POST', () => '/users/alice/enrollments', { tenant: 'DEFAULT' }), status: 400, error: 'invalid_request' },
  { name: "an enrollment in another tenant than the user's", request: admin('POST', () => '/users/bob/enrollments', { tenant: TENANT_ACME }), status: 404, error: 'not_found' },
  { name: 'an enrollment with JSON that is not valid', request: admin('POST', () => '/users/alice/enrollments', '{"tenant"'), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with a JSON array', request: admin('POST', () => '/users/alice/enrollments', '[]'), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with a form body', request: admin('POST', () => '/users/alice/enrollments', 'tenant=default', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a request that is unknown', request: admin('GET', () => `/requests/${'u'.repeat(43)}`), status: 404, error: 'not_found' },
  { name: 'a request id of 10 KB', request: admin('GET', () => `/requests/${'u'.repeat(10_240)}`), status: 404, error: 'not_found' },
  { name: 'a request with an invalid tenant', request: admin('GET', (w) => `/requests/${w.pendingA}?tenant=a%7D%3A%7Bb`), status: 400, error: 'invalid_request' },
  { name: 'a request looked up in another tenant', request: admin('GET', (w) => `/requests/${w.pendingA}?tenant=${TENANT_ACME}`), status: 404, error: 'not_found' },
  { name: 'an audit without auth_req_id', request: admin('GET', () => '/audit'), status: 400, error: 'invalid_request' },
  { name: 'an audit with an auth_req_id of 10 KB', request: admin('GET', () => `/audit?auth_req_id=${'u'.repeat(10_240)}`), status: 400, error: 'invalid_request' },
  { name: 'an audit with a malformed percent escape', request: admin('GET', () => '/audit?auth_req_id=%zz'), status: 400, error: 'invalid_request' },
  { name: 'an audit with an invalid tenant', request: admin('GET', (w) => `/audit?auth_req_id=${w.pendingA}&tenant=NOPE`), status: 400, error: 'invalid_request' },
];

const methodAttacks: Attack[] = [
  // A known path with the wrong method: 405 with Allow, not a 404 that suggests a wrong URL.
  { name: 'GET /bc-authorize', request: get(() => '/bc-authorize'), status: 405, error: 'invalid_request', allow: 'POST', description: /^GET is not allowed here; this endpoint takes POST\.$/ },
  { name: 'GET /token', request: get(() => '/token'), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'GET /redeem', request: get(() => '/redeem'), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'GET /redemptions/{id}/outcome', request: get((w) => `/redemptions/${w.redemptionA}/outcome`), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'PUT /token', request: (w) => ({ ...token(() => ({ grant_type: CIBA }))(w), method: 'PUT' }), status: 405, error: 'invalid_request', allow: 'POST', description: /^PUT is not allowed here/ },
  { name: 'DELETE /requests/{id}', request: (w) => ({ ...get(() => `/requests/${w.pendingA}`)(w), method: 'DELETE' }), status: 405, error: 'invalid_request', allow: 'GET, HEAD, POST', description: /takes GET or POST\./ },
  { name: 'POST /jwks.json', request: (w) => ({ ...get(() => '/jwks.json')(w), method: 'POST' }), status: 405, error: 'invalid_request', allow: 'GET, HEAD' },
  { name: 'an unknown device route', request: device((w) => ({ method: 'POST', path: '/admin', body: {}, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'an unknown admin route', request: admin('DELETE', () => '/clients'), status: 404, error: 'not_found' },
  { name: 'an unknown API path', request: get(() => '/api/%zz'), status: 404, error: 'not_found' },
];

// --------------------------------------------------------------------------------------------
// The suite, on both stores.
// --------------------------------------------------------------------------------------------

const TABLES: [string, Attack[]][] = [
  ['POST /bc-authorize: body and content type', bcContent],
  ['POST /bc-authorize: client authentication', bcAuth],
  ['POST /bc-authorize: parameters', bcParameters],
  ['POST /bc-authorize: authorization_details', bcDetails],
  ['POST /token', tokenAttacks],
  ['POST /redeem', redeemAttacks],
  ['POST /redemptions/{id}/outcome', outcomeAttacks],
  ['GET /requests/{id}', requestViewAttacks],
  ['POST /requests/{id}', postViewAttacks],
  ['POST /api/device/enroll/*', enrollAttacks],
  ['PUT /api/device/push-subscription', pushAttacks],
  ['GET /api/device/*', deviceReadAttacks],
  ['POST /api/device/requests/{id}/decision', decisionAttacks],
  ['/api/admin/*: bearer token', adminAuthAttacks],
  ['/api/admin/*: bodies and parameters', adminBodyAttacks],
  ['methods and paths', methodAttacks],
];

async function setUpWorld(h: Harness): Promise<World> {
  const alice = await h.enrollUser('alice');
  const bob = await h.enrollUser('bob');
  const a = await h.createClient('Agent A');
  const b = await h.createClient('Agent B');
  const acme = await h.admin('POST', '/clients', { name: 'Agent C', tenant: TENANT_ACME });
  const c = { client_id: acme.body.client_id as string, client_secret: acme.body.client_secret as string };
  await h.admin('POST', '/users', { sub: 'alice', tenant: TENANT_ACME });
  const deviceless = 'deviceless';
  await h.admin('POST', '/users', { sub: deviceless });

  const ask = async (sub: string, transactionId: string) => {
    const form = new URLSearchParams(bcParams({ login_hint: sub, authorization_details: JSON.stringify([payment({ transaction_id: transactionId })]) }));
    const answer = await send(h, { method: 'POST', path: '/bc-authorize', headers: { 'content-type': FORM, authorization: basic(a) }, body: form.toString() });
    if (answer.status !== 200) throw new Error(`bc-authorize failed: ${answer.text}`);
    return answer.body.auth_req_id as string;
  };
  const poll = async (authReqId: string) => {
    h.clock.advance(10);
    const form = new URLSearchParams({ grant_type: CIBA, auth_req_id: authReqId });
    const answer = await send(h, { method: 'POST', path: '/token', headers: { 'content-type': FORM, authorization: basic(a) }, body: form.toString() });
    if (answer.status !== 200) throw new Error(`token failed: ${answer.text}`);
    return answer.body.access_token as string;
  };

  const pendingA = await ask('alice', 'txn_pending_a');
  const pendingBob = await ask('bob', 'txn_pending_bob');
  const approvedA = await ask('alice', 'txn_approved_a');
  expect((await h.decide(alice, approvedA, 'approve')).status).toBe(200);
  const approvedToken = await poll(approvedA);
  const redeemedA = await ask('alice', 'txn_redeemed_a');
  expect((await h.decide(alice, redeemedA, 'approve')).status).toBe(200);
  const redeemedToken = await poll(redeemedA);
  const redeemBodyText = JSON.stringify({ token: redeemedToken, authorization_details: [payment({ transaction_id: 'txn_redeemed_a' })] });
  const redeemed = await send(h, { method: 'POST', path: '/redeem', headers: { 'content-type': JSON_TYPE, authorization: basic(a) }, body: redeemBodyText });
  if (redeemed.status !== 200) throw new Error(`redeem failed: ${redeemed.text}`);

  // An enrollment code that has been used: register a third device with it, through the real API.
  await h.admin('POST', '/users', { sub: 'carol' });
  const usedCode = (await h.admin('POST', '/users/carol/enrollments')).body.enrollment_code as string;
  const carolPhone = createSoftAuthenticator({ origin: h.issuer, rpId: new URL(h.issuer).hostname });
  const carolOptions = await h.call('POST', '/api/device/enroll/options', { body: { enrollment_code: usedCode }, headers: { origin: h.issuer } });
  const carolVerify = await h.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: usedCode, response: await carolPhone.register(carolOptions.body) }, headers: { origin: h.issuer } });
  expect(carolVerify.status).toBe(200);

  await h.deps.background.drain();
  return { h, alice, bob, a, b, c, pendingA, pendingBob, approvedA, approvedToken, redeemedA, redemptionA: redeemed.body.redemption_id as string, usedCode, deviceless };
}

describe.each(['memory', 'redis'] as const)('bad input on every endpoint (%s store)', (storeKind) => {
  let w: World;
  let watch: StoreWatch;

  beforeAll(async () => {
    // Hundreds of refused credentials from the one source `app.request()` has: not about the limits.
    const h = await createHarness({ store: storeKind, env: UNLIMITED_RATES });
    w = await setUpWorld(h);
    watch = watchStore(h.store);
  });
  afterAll(() => w?.h.close());

  describe.each(TABLES)('%s', (_table, attacks) => {
    it.each(attacks)('refuses $name, changing nothing', async (attack) => {
      const raw = await attack.request(w);
      await w.h.deps.background.drain();
      watch.begin();
      const answer = await send(w.h, raw).catch(async (error: unknown) => {
        await watch.end();
        throw error;
      });
      await w.h.deps.background.drain();
      const changes = await watch.end();

      expect(answer.status, answer.text.slice(0, 500)).toBe(attack.status);
      expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/json\b/);
      expect(answer.body).toBeTypeOf('object');
      expect(answer.body.error).toBeTypeOf('string');
      expect(answer.body.error_description).toBeTypeOf('string');
      const errors = Array.isArray(attack.error) ? attack.error : [attack.error];
      expect(errors).toContain(answer.body.error);
      expect(answer.body.error_description, 'error_description outside RFC 6749 §5.2, or echoing the input at length').toMatch(OAUTH_DESCRIPTION);
      expect(answer.text).not.toMatch(LEAK);
      if (attack.challenge) expect(answer.headers.get('www-authenticate') ?? '').toMatch(attack.challenge);
      if (attack.description) expect(answer.body.error_description).toMatch(attack.description);
      if (attack.allow !== undefined || attack.status === 405) expect(answer.headers.get('allow')).toBe(attack.allow);
      expectOnlyAllowedChanges(changes, { error: answer.body.error, ...(attack.consumes ? { consumes: attack.consumes } : {}) });
    });
  });

  describe('and afterwards', () => {
    const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => w.h.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: w.h.issuer } });

    it('still holds every request in the state it was in, with no audit event but refusals', async () => {
      const expected: [string, string][] = [
        [w.pendingA, 'pending'],
        [w.pendingBob, 'pending'],
        [w.approvedA, 'approved'],
        [w.redeemedA, 'redeemed'],
      ];
      for (const [id, state] of expected) {
        const view = await w.h.admin('GET', `/requests/${id}`);
        expect(view.body.request.state).toBe(state);
        const audit = await w.h.admin('GET', `/audit?auth_req_id=${id}`);
        const types = new Set(audit.body.events.map((event: { type: string }) => event.type));
        expect([...types].filter((type) => !['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'refused'].includes(type as string))).toEqual([]);
      }
      expect((await w.h.admin('GET', `/requests/${w.redeemedA}`)).body.request.outcome).toEqual({ status: 'unknown' });
    });

    it('still shows each person exactly their own pending requests, and a valid request adds exactly one', async () => {
      const ids = async (user: EnrolledUser) => ((await device(user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id).sort();
      expect(await ids(w.alice)).toEqual([w.pendingA]);
      expect(await ids(w.bob)).toEqual([w.pendingBob]);
      // The baseline every /bc-authorize case was derived from is valid.
      const fresh = await send(w.h, bc(bcParams())(w));
      expect(fresh.status, fresh.text).toBe(200);
      expect(await ids(w.alice)).toEqual([w.pendingA, fresh.body.auth_req_id].sort());
      expect(await ids(w.bob)).toEqual([w.pendingBob]);
    });

    it('still lets alice approve her pending request, and client A collect and redeem its approval once', async () => {
      expect((await w.h.decide(w.alice, w.pendingA, 'approve')).status).toBe(200);
      w.h.clock.advance(10);
      const polled = await send(w.h, token(() => ({ grant_type: CIBA, auth_req_id: w.pendingA }))(w));
      expect(polled.status, polled.text).toBe(200);
      // The token the /redeem cases attacked is still redeemable, by its client, exactly once.
      const first = await send(w.h, json('POST', redeemPath, redeemBody())(w));
      expect(first.status, first.text).toBe(200);
      const second = await send(w.h, json('POST', redeemPath, redeemBody())(w));
      expect([second.status, second.body.error]).toEqual([409, 'already_redeemed']);
    });

    it('still takes the first outcome report for the redemption the outcome cases attacked', async () => {
      const report = await send(w.h, json('POST', outcomePath, () => ({ status: 'succeeded', reference: 're_1' }))(w));
      expect(report.status, report.text).toBe(200);
      expect((await w.h.admin('GET', `/requests/${w.redeemedA}`)).body.request.outcome).toEqual({ status: 'succeeded', reference: 're_1' });
    });

    it('still accepts the valid push subscription and admin bodies the cases were derived from', async () => {
      expect((await send(w.h, await subscribe(SUBSCRIPTION)(w))).status).toBe(204);
      expect((await w.h.admin('POST', '/clients', { name: 'Agent D' })).status).toBe(201);
      expect((await w.h.admin('POST', '/users', { sub: 'newcomer' })).status).toBe(201);
      expect((await w.h.admin('POST', '/users/newcomer/enrollments', { tenant: 'default' })).status).toBe(201);
    });

    it('still enrolls a device with a fresh code, and never with a used one', async () => {
      const { code, options } = await freshEnrollment(w);
      const phone = createSoftAuthenticator({ origin: w.h.issuer, rpId: new URL(w.h.issuer).hostname });
      const verify = await w.h.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options) }, headers: { origin: w.h.issuer } });
      expect(verify.status, JSON.stringify(verify.body)).toBe(200);
      const again = await w.h.call('POST', '/api/device/enroll/options', { body: { enrollment_code: w.usedCode }, headers: { origin: w.h.issuer } });
      expect(again.body.error).toBe('invalid_enrollment_code');
    });
  });
});
