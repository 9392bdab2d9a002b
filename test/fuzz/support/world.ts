import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { payment } from '../../support/payment.ts';
import { basic, send, type Credentials } from '../../support/raw-request.ts';
import { watchStore, type StoreWatch } from '../../support/store-watch.ts';

/**
 * The world each fuzzed endpoint (`checked.ts`) is sent requests in: two users with passkeys, three
 * clients, requests in every state, and the ids an attacker may know or guess.
 */

/** The two content types the endpoints take, and the CIBA grant type of `/token`. */
export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';
export const CIBA = 'urn:openid:params:grant-type:ciba';

/** Request headers: a content type and an authorization where given, and `more`. */
export function headers(type: string | undefined, auth: string | undefined, more: Record<string, string> = {}): Record<string, string> {
  return { ...(type === undefined ? {} : { 'content-type': type }), ...(auth === undefined ? {} : { authorization: auth }), ...more };
}

/** The world of one fuzzed endpoint; the requests it names are renewed as inputs settle them. */
export interface World {
  h: Harness;
  watch: StoreWatch;
  alice: EnrolledUser;
  bob: EnrolledUser;
  users: Map<string, EnrolledUser>;
  a: Credentials;
  b: Credentials;
  /** A client of another tenant. */
  c: Credentials;
  /** Alice's pending request from client A (renewed when a fuzzed decision settles it). */
  pending: string;
  /** Bob's pending request from client A. */
  pendingBob: string;
  /** Alice's pending request from client B. */
  pendingOfB: string;
  /** An approved request of client A, its transaction and its approval token (renewed once redeemed). */
  approved: string;
  approvedTxn: string;
  approvedToken: string;
  /** A denied request of client A. */
  denied: string;
}

let transactions = 0;
/** A fresh transaction id. */
export function txn(): string {
  transactions += 1;
  return `txn_fuzz_${transactions}`;
}

/** The payment every request of the world asks for, in the transaction given. */
export const details = (transactionId: string) => payment({ transaction_id: transactionId, amount_minor: 4900 });

/** A pending request of `client` for `sub`; its auth_req_id. */
export async function ask(w: Pick<World, 'h'>, client: Credentials, sub: string, transactionId = txn()): Promise<string> {
  const form = new URLSearchParams({ scope: 'openid', login_hint: sub, binding_message: 'Refund 1042', authorization_details: JSON.stringify(details(transactionId)) });
  const answer = await send(w.h, { method: 'POST', path: '/bc-authorize', headers: headers(FORM, basic(client)), body: form.toString() });
  if (answer.status !== 200) throw new Error(`bc-authorize failed: ${answer.text}`);
  return answer.body.auth_req_id as string;
}

/** A request of client A that alice approved, whose token is not collected yet. */
export async function approved(w: Pick<World, 'h' | 'alice' | 'a'>): Promise<{ id: string; txn: string }> {
  const transactionId = txn();
  const id = await ask(w, w.a, 'alice', transactionId);
  expect((await w.h.decide(w.alice, id, 'approve')).status).toBe(200);
  return { id, txn: transactionId };
}

/** An approved request of client A and its approval token. */
export async function approve(w: Pick<World, 'h' | 'alice' | 'a'>): Promise<{ id: string; txn: string; token: string }> {
  const { id, txn: transactionId } = await approved(w);
  w.h.clock.advance(10);
  const polled = await send(w.h, { method: 'POST', path: '/token', headers: headers(FORM, basic(w.a)), body: new URLSearchParams({ grant_type: CIBA, auth_req_id: id }).toString() });
  if (polled.status !== 200) throw new Error(`token failed: ${polled.text}`);
  return { id, txn: transactionId, token: polled.body.access_token as string };
}

/** Sets up the world on `storeKind`, under `policy` (a policy file) where given. */
export async function setUpWorld(storeKind: 'memory' | 'redis', policy?: string): Promise<World> {
  // A session's allowance of changes is raised, so the fuzzed decisions reach the decision itself (test/rate-limits/per-session.test.ts tests the limit).
  const h = await createHarness({ store: storeKind, env: { RATE_LIMIT_DEVICE_CHANGES: '1000000/1', ...(policy ? { POLICY_FILE: policy } : {}) } });
  const alice = await h.enrollUser('alice');
  const bob = await h.enrollUser('bob');
  const a = await h.createClient('Agent A');
  const b = await h.createClient('Agent B');
  const acme = await h.admin('POST', '/clients', { name: 'Agent C', tenant: 'acme' });
  const c = { client_id: acme.body.client_id as string, client_secret: acme.body.client_secret as string };
  await h.admin('POST', '/users', { sub: 'alice', tenant: 'acme' });
  const base = { h, alice, a };
  const pending = await ask(base, a, 'alice');
  const pendingBob = await ask(base, a, 'bob');
  const pendingOfB = await ask(base, b, 'alice');
  const denied = await ask(base, a, 'alice');
  expect((await h.decide(alice, denied, 'deny')).status).toBe(200);
  const collected = await approve(base);
  await h.deps.background.drain();
  return {
    h,
    watch: watchStore(h.store),
    alice,
    bob,
    users: new Map([
      ['alice', alice],
      ['bob', bob],
    ]),
    a,
    b,
    c,
    pending,
    pendingBob,
    pendingOfB,
    approved: collected.id,
    approvedTxn: collected.txn,
    approvedToken: collected.token,
    denied,
  };
}

/** Ids of the world an attacker may know or guess: other clients', other people's, other tenants'. */
export function knownIds(w: () => World): fc.Arbitrary<string> {
  return fc.constantFrom('pending', 'pendingBob', 'pendingOfB', 'approved', 'denied', 'approvedToken', 'clientA', 'clientB', 'clientC', 'unknown').map((name) => {
    const world = w();
    const values: Record<string, string> = {
      pending: world.pending,
      pendingBob: world.pendingBob,
      pendingOfB: world.pendingOfB,
      approved: world.approved,
      denied: world.denied,
      approvedToken: world.approvedToken,
      clientA: world.a.client_id,
      clientB: world.b.client_id,
      clientC: world.c.client_id,
      unknown: 'u'.repeat(27),
    };
    return values[name]!;
  });
}

/** Denies a pending request a fuzzed input created, with its user's passkey (outside any watch). */
export async function settle(w: World, authReqId: string): Promise<void> {
  const view = await w.h.admin('GET', `/requests/${authReqId}`);
  const user = w.users.get(view.body.request?.sub);
  if (user && view.body.request.state === 'pending') expect((await w.h.decide(user, authReqId, 'deny')).status).toBe(200);
}

/**
 * Worlds on `storeKind`, each closed after the tests of the calling `describe`.
 * A world of its own for each endpoint, so one property's leftovers (spent limits, settled requests) do not steer another's.
 */
export function fuzzWorlds(storeKind: 'memory' | 'redis'): (policy?: string) => Promise<World> {
  const worlds: World[] = [];
  afterAll(async () => {
    for (const w of worlds) await w.h.close();
  });
  return async (policy) => {
    const w = await setUpWorld(storeKind, policy);
    worlds.push(w);
    return w;
  };
}
