import { expect } from 'vitest';
import type { EnrolledUser, Harness } from '../../support/harness.ts';
import { createSoftAuthenticator } from '../../support/soft-authenticator.ts';
import { basic, send, type Credentials } from '../../support/raw-request.ts';
import { payment as paymentDetails } from '../../support/payment.ts';

/**
 * The world the bad-input cases attack (`suite.ts`): two users with passkeys, three clients,
 * requests in every state, and the valid payment and form the cases are derived from.
 */

/** Everything a case may aim at, made by `setUpWorld`. */
export interface World {
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

/** The tenant of client C. */
export const TENANT_ACME = 'acme';

/** The two content types the endpoints take. */
export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';
/** The CIBA grant type of `/token`. */
export const CIBA = 'urn:openid:params:grant-type:ciba';

/** The payment of docs/ciba.md (`test/support/payment.ts`) as one action, with overrides. */
export function payment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return paymentDetails(overrides)[0]!;
}

let transactions = 0;
/** A fresh transaction id, so that a case that wrongly succeeded could never be an idempotent replay. */
export function txn(): string {
  transactions += 1;
  return `txn_bad_${transactions}`;
}

/** The valid `/bc-authorize` form for alice, with overrides (undefined removes a parameter). */
export function bcParams(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    scope: 'openid',
    login_hint: 'alice',
    binding_message: 'Refund 1042',
    authorization_details: JSON.stringify([payment({ transaction_id: txn() })]),
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Enrolls alice and bob, registers clients A, B (tenant default) and C (tenant acme), and puts requests in every state. */
export async function setUpWorld(h: Harness): Promise<World> {
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
