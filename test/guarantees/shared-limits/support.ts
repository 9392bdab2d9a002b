/**
 * Set-up shared by the tests that one client cannot lock a person out of every other client (docs/security.md): a request that ends
 * unused (denied, "this wasn't me", expired) gives back its places in the USER's limits; a redeemed
 * one keeps counting; the client's own velocity window keeps all of its requests; and one client
 * may hold only its share of a user's pending places.
 */
import { keys } from '@countersign/server';
import { afterEach } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { bcAuthorize, pay, testPolicy } from '../policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** EUR 50,000: the whole of the user's velocity amount in these tests. */
export const USER_EUR_LIMIT = 5_000_000;

/** Registers, in the calling `describe`, the close of the server `start` makes (and of any `others` a test starts): customer_1 and two clients, `a` and `b`. Read them through the returned object. */
export function useSharedLimits(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    a: Client;
    b: Client;
  };
  const others: Harness[] = [];

  async function start(change: (policy: any) => void = () => {}) {
    const policy = testPolicy((p) => {
      // Every EUR amount is the standard tier: the customer alone decides, with no reviewer or code.
      p.types.payment.amount_tiers.EUR = [];
      p.limits.velocity.per_user.max_amount_minor = { EUR: USER_EUR_LIMIT };
      change(p);
    });
    state.harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    state.customer = await state.harness.enrollUser('customer_1');
    state.a = await state.harness.createClient('Agent A');
    state.b = await state.harness.createClient('Agent B');
  }
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await state.harness.close();
  });

  const ask = (as: Client, transactionId: string, amount = 49_000, requestedExpiry?: number) => bcAuthorize(state.harness, as, { login_hint: state.customer.sub, details: pay(transactionId, amount), ...(requestedExpiry === undefined ? {} : { requested_expiry: requestedExpiry }) });
  const idOf = async (asked: ReturnType<typeof ask>) => {
    const reply = await asked;
    if (reply.status !== 200) throw new Error(`not accepted: ${JSON.stringify(reply.body)}`);
    return reply.body.auth_req_id as string;
  };
  /** A velocity window as it stands, read without adding to it (an offer that cannot fit, `maxCount: 0`). */
  const windowOf = (kind: 'velocity-user' | 'velocity-client', owner: string) => {
    const { window_seconds } = state.harness.deps.policy.limits.velocity[kind === 'velocity-user' ? 'per_user' : 'per_client'];
    return state.harness.store.windowAdd(keys.window('default', kind, owner), { nowMs: state.harness.clock.now(), windowMs: window_seconds * 1000, member: '-', maxCount: 0 }).then(({ count, totals }) => ({ count, totals }));
  };
  const userWindow = () => windowOf('velocity-user', state.customer.sub);
  const refusal = async (asked: ReturnType<typeof ask>) => {
    const reply = await asked;
    return [reply.status, reply.body.error, reply.body.error_description];
  };
  const lockedOut = [429, 'velocity_exceeded', 'Too many requests, or too much money, for this user within 3600 seconds.'];
  const stateOf = async (id: string) => (await state.harness.admin('GET', `/requests/${id}`)).body.request.state;

  return Object.assign(state, { start, ask, idOf, windowOf, userWindow, refusal, lockedOut, stateOf, others });
}
