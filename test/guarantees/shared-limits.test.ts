import { keys, velocityMemberOf, type Store } from '@countersign/server';
import { createAgentClient } from '@countersign/agent';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPolicy, parsePolicy } from '../../server/src/policy/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { answer, bcAuthorize, pay, pollToken, shippedPolicy, testPolicy } from './policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** EUR 50,000: the whole of the user's velocity amount in these tests. */
const USER_EUR_LIMIT = 5_000_000;

/**
 * One client cannot lock a person out of every other client (docs/security.md): a request that ends
 * unused (denied, "this wasn't me", expired) gives back its places in the USER's limits; a redeemed
 * one keeps counting; the client's own velocity window keeps all of its requests; and one client
 * may hold only its share of a user's pending places.
 */
describe.each(['memory', 'redis'] as const)('one client cannot lock a person out of the others (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let a: Client;
  let b: Client;
  const others: Harness[] = [];

  async function start(change: (policy: any) => void = () => {}) {
    const policy = testPolicy((p) => {
      // Every EUR amount is the standard tier: the customer alone decides, with no reviewer or code.
      p.types.payment.amount_tiers.EUR = [];
      p.limits.velocity.per_user.max_amount_minor = { EUR: USER_EUR_LIMIT };
      change(p);
    });
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    customer = await harness.enrollUser('customer_1');
    a = await harness.createClient('Agent A');
    b = await harness.createClient('Agent B');
  }
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await harness.close();
  });

  const ask = (as: Client, transactionId: string, amount = 49_000, requestedExpiry?: number) => bcAuthorize(harness, as, { login_hint: customer.sub, details: pay(transactionId, amount), ...(requestedExpiry === undefined ? {} : { requested_expiry: requestedExpiry }) });
  const idOf = async (asked: ReturnType<typeof ask>) => {
    const reply = await asked;
    if (reply.status !== 200) throw new Error(`not accepted: ${JSON.stringify(reply.body)}`);
    return reply.body.auth_req_id as string;
  };
  /** A velocity window as it stands, read without adding to it (an offer that cannot fit, `maxCount: 0`). */
  const windowOf = (kind: 'velocity-user' | 'velocity-client', owner: string) => {
    const { window_seconds } = harness.deps.policy.limits.velocity[kind === 'velocity-user' ? 'per_user' : 'per_client'];
    return harness.store.windowAdd(keys.window('default', kind, owner), { nowMs: harness.clock.now(), windowMs: window_seconds * 1000, member: '-', maxCount: 0 }).then(({ count, totals }) => ({ count, totals }));
  };
  const userWindow = () => windowOf('velocity-user', customer.sub);
  const refusal = async (asked: ReturnType<typeof ask>) => {
    const reply = await asked;
    return [reply.status, reply.body.error, reply.body.error_description];
  };
  const lockedOut = [429, 'velocity_exceeded', 'Too many requests, or too much money, for this user within 3600 seconds.'];
  const stateOf = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request.state;

  it('gives back a denied request’s amount in the user’s window, so another client is accepted; the denied client’s own window keeps it', async () => {
    await start();
    const large = await idOf(ask(a, 'a_1', USER_EUR_LIMIT));
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);

    expect((await harness.decide(customer, large, 'deny')).status).toBe(200);
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(b, 'b_1')).status).toBe(200);
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: 49_000 } });
    // A's budget is A's: being denied gives it nothing back.
    expect(await windowOf('velocity-client', a.client_id)).toEqual({ count: 1, totals: { EUR: USER_EUR_LIMIT } });
  });

  it('keeps counting a denied request against its own client: the client over its window stays refused while others are accepted', async () => {
    await start((p) => {
      p.limits.velocity.per_client.max_amount_minor = { EUR: USER_EUR_LIMIT };
    });
    const large = await idOf(ask(a, 'a_1', USER_EUR_LIMIT));
    expect((await harness.decide(customer, large, 'deny')).status).toBe(200);
    expect(await refusal(ask(a, 'a_2'))).toEqual([429, 'velocity_exceeded', 'Too many requests, or too much money, from this client within 3600 seconds.']);
    expect((await ask(b, 'b_1')).status).toBe(200);
  });

  it('gives back an expired request’s amount once the sweeper expires it, so another client is accepted', async () => {
    await start();
    const large = await idOf(ask(a, 'a_1', USER_EUR_LIMIT, 60));
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);
    harness.clock.advance(60);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect(await stateOf(large)).toBe('expired');
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(b, 'b_1')).status).toBe(200);
  });

  it('gives back an approval that ran out unredeemed once the sweeper expires it, though its client never looked again', async () => {
    await start();
    const large = await idOf(ask(a, 'a_1', USER_EUR_LIMIT));
    expect((await answer(harness, customer, large, { decision: 'approve' })).status).toBe(200);
    expect((await pollToken(harness, a, large)).status).toBe(200);
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);

    harness.clock.advance(harness.deps.config.approvalTokenTtl - 1);
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);
    harness.clock.advance(1);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect(await stateOf(large)).toBe('expired');
    expect((await ask(b, 'b_1')).status).toBe(200);
  });

  it('gives back exactly once, this request’s entry only, when two instances’ sweepers and polls race to expire it', async () => {
    await start();
    expect((await ask(b, 'b_1')).status).toBe(200);
    const large = await idOf(ask(a, 'a_1', 4_000_000, 60));
    const second = await harness.instance();
    others.push(second);
    const userKey = keys.window('default', 'velocity-user', customer.sub);
    const takenBack: string[] = [];
    // One wrapper per store object: on memory both instances share one.
    for (const store of new Set<Store>([harness.store, second.store])) {
      const windowRemove = store.windowRemove.bind(store);
      store.windowRemove = async (key, member) => {
        if (key === userKey) takenBack.push(member);
        return windowRemove(key, member);
      };
    }
    harness.clock.advance(60);
    const polls = await Promise.all([harness.deps.sweeper.sweep(), second.deps.sweeper.sweep(), pollToken(harness, a, large), pollToken(second, a, large)]);
    expect([polls[2].body.error, polls[3].body.error]).toEqual(['expired_token', 'expired_token']);
    expect(takenBack).toEqual([velocityMemberOf(large)]);
    // B's entry stays: only the expired request's came out.
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: 49_000 } });
  });

  it('gives back the amount of a request reported as "this wasn’t me", so another client is accepted', async () => {
    await start();
    const large = await idOf(ask(a, 'a_1', USER_EUR_LIMIT));
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);
    const reported = await answer(harness, customer, large, { decision: 'deny', path: 'report' });
    expect([reported.status, reported.body.request.state]).toEqual([200, 'denied']);
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(b, 'b_1')).status).toBe(200);
  });

  it('keeps counting a redeemed request (money moved), even after its approval’s deadline, while a denied one beside it is given back', async () => {
    await start();
    const denied = await idOf(ask(a, 'a_1', USER_EUR_LIMIT / 2));
    const redeemed = await idOf(ask(a, 'a_2', USER_EUR_LIMIT / 2));
    expect(await refusal(ask(b, 'b_1'))).toEqual(lockedOut);
    expect((await harness.decide(customer, denied, 'deny')).status).toBe(200);
    expect((await answer(harness, customer, redeemed, { decision: 'approve' })).status).toBe(200);
    const token = await pollToken(harness, a, redeemed);
    const agent = createAgentClient({ issuer: harness.issuer, clientId: a.client_id, clientSecret: a.client_secret, fetch: harness.fetch });
    expect((await agent.redeem(token.body.access_token, pay('a_2', USER_EUR_LIMIT / 2))).status).toBe('redeemed');

    // The denied half is free again; the redeemed half is not.
    expect((await ask(b, 'b_1', USER_EUR_LIMIT / 2)).status).toBe(200);
    expect(await refusal(ask(b, 'b_2', 1))).toEqual(lockedOut);
    // Redeemed, it left the expiry index: no sweep can expire it and give it back.
    expect(await harness.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).not.toContain(`default:${redeemed}`);
    harness.clock.advance(harness.deps.config.approvalTokenTtl);
    await harness.deps.sweeper.sweep();
    expect(await stateOf(redeemed)).toBe('redeemed');
    // B's request expired meanwhile and was given back; the redeemed one still counts.
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: USER_EUR_LIMIT / 2 } });
    expect(await refusal(ask(b, 'b_2', USER_EUR_LIMIT / 2 + 1))).toEqual(lockedOut);
  });

  it('holds one client to its share of a user’s pending places, and gives the share back as its requests are denied, expire or are approved', async () => {
    await start((p) => {
      p.limits.max_pending_per_user = 4;
      p.limits.max_pending_per_client_user = 3;
    });
    const expiring = await idOf(ask(a, 'a_1', 49_000, 60));
    const toDeny = await idOf(ask(a, 'a_2'));
    const toApprove = await idOf(ask(a, 'a_3'));
    expect(await refusal(ask(a, 'a_4'))).toEqual([429, 'too_many_pending', "This client already has 3 pending requests for this user, its share of the user's 4; wait for one to be decided."]);
    // A's refused request took no place of the user's: B gets the fourth.
    expect((await ask(b, 'b_1')).status).toBe(200);
    const c = await harness.createClient('Agent C');
    expect(await refusal(ask(c, 'c_1'))).toEqual([429, 'too_many_pending', 'This user already has 4 pending requests; wait for one to be decided.']);

    expect((await harness.decide(customer, toDeny, 'deny')).status).toBe(200);
    expect((await ask(a, 'a_4')).status).toBe(200);
    harness.clock.advance(60);
    await harness.deps.sweeper.sweep();
    expect(await stateOf(expiring)).toBe('expired');
    expect((await ask(a, 'a_5')).status).toBe(200);
    expect((await answer(harness, customer, toApprove, { decision: 'approve' })).status).toBe(200);
    expect((await ask(a, 'a_6')).status).toBe(200);
    const share = await harness.store.sortedWindowMembers(keys.clientPendingRequests('default', customer.sub, a.client_id), harness.clock.now(), 0);
    expect(share).toHaveLength(3);
  });
});

describe('the pending share in the policy', () => {
  it('ships a share of 3 of a user’s 10 pending places', async () => {
    const policy = await loadPolicy();
    expect([policy.limits.max_pending_per_user, policy.limits.max_pending_per_client_user]).toEqual([10, 3]);
  });

  it('takes three tenths of the user’s places, rounded up, when the share is unset', () => {
    const policy = shippedPolicy();
    delete policy.limits.max_pending_per_client_user;
    expect(parsePolicy(policy).limits.max_pending_per_client_user).toBe(3);
    policy.limits.max_pending_per_user = 2;
    expect(parsePolicy(policy).limits.max_pending_per_client_user).toBe(1);
  });

  it('refuses a share larger than the user’s places', () => {
    const policy = shippedPolicy();
    policy.limits.max_pending_per_client_user = 11;
    expect(() => parsePolicy(policy, 'wide.json')).toThrow("invalid policy (wide.json):\n  limits.max_pending_per_client_user: must be at most max_pending_per_user (10): it is one client's share of a user's pending places");
  });
});
