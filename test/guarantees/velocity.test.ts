import { keys, velocityMemberOf } from '@countersign/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { bcAuthorize, device, pay, testPolicy, watchAudit, type SeenEvent } from './policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** Velocity limits (docs/guarantees.md): per user and per client, a count and a total per currency in a sliding window; atomic on Redis and Redis Cluster too. */
describe.each(['memory', 'redis', 'cluster'] as const)('velocity limits (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];
  let pushes: string[];

  async function start(limits: { per_user?: object; per_client?: object }) {
    const policy = testPolicy((p) => {
      Object.assign(p.limits.velocity.per_user, limits.per_user);
      Object.assign(p.limits.velocity.per_client, limits.per_client);
    });
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
    pushes = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushes.push(input.auth_req_id);
      return notifyUser(input);
    };
  }
  afterEach(() => harness.close());

  const ask = (transactionId: string, amount = 49_000, currency = 'EUR', as: Client = client, sub = customer.sub) => bcAuthorize(harness, as, { login_hint: sub, details: pay(transactionId, amount, currency) });
  const inbox = async (user = customer) => (await device(harness, user, 'GET', '/requests')).body.requests.length;
  /**
   * The user's velocity window as it stands, read without adding to it: an offer that cannot fit
   * (`maxCount: 0`) is refused with the window's count and totals.
   */
  const userWindow = () => harness.store.windowAdd(keys.window('default', 'velocity-user', customer.sub), { nowMs: harness.clock.now(), windowMs: harness.deps.policy.limits.velocity.per_user.window_seconds * 1000, member: '-', maxCount: 0 });
  const refusals = () => audit.filter((event) => event.type === 'refused').map((event) => [event.reason, event.client_id, event.channel]);

  it('refuses the request over the per-user count with 429 velocity_exceeded, storing and pushing nothing, and audits it', async () => {
    await start({ per_user: { max_count: 3 } });
    for (const id of ['txn_1', 'txn_2', 'txn_3']) expect((await ask(id)).status).toBe(200);
    const refused = await ask('txn_4');
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toMatch(/this user within 3600 seconds/);
    await harness.deps.background.drain();
    expect(await inbox()).toBe(3);
    expect(pushes).toHaveLength(3);
    expect(audit.filter((event) => event.type === 'proposed')).toHaveLength(3);
    expect(refusals()).toEqual([['velocity_exceeded', client.client_id, 'agent']]);
  });

  it('totals each currency on its own: EUR over its limit is refused while USD still fits', async () => {
    await start({ per_user: { max_amount_minor: { EUR: 100_000, USD: 100_000 } } });
    expect((await ask('txn_1', 49_000)).status).toBe(200);
    expect((await ask('txn_2', 49_000)).status).toBe(200);
    expect((await ask('txn_3', 2_001)).body.error).toBe('velocity_exceeded');
    expect((await ask('txn_4', 2_000)).status).toBe(200);
    expect((await ask('txn_5', 99_000, 'USD')).status).toBe(200);
    expect(await userWindow()).toMatchObject({ count: 4, totals: { EUR: 100_000, USD: 99_000 } });
  });

  it('slides: once the oldest request leaves the window, the next one fits', async () => {
    await start({ per_user: { max_count: 2, window_seconds: 600 } });
    expect((await ask('txn_1')).status).toBe(200);
    harness.clock.advance(300);
    expect((await ask('txn_2')).status).toBe(200);
    expect((await ask('txn_3')).status).toBe(429);
    harness.clock.advance(299);
    expect((await ask('txn_3')).status).toBe(429);
    harness.clock.advance(1);
    expect((await ask('txn_3')).status).toBe(200);
    expect((await ask('txn_4')).status).toBe(429);
  });

  it('limits a client across all the users it asks, and leaves other clients alone', async () => {
    await start({ per_client: { max_count: 2 } });
    const second = await harness.enrollUser('customer_2');
    expect((await ask('txn_1')).status).toBe(200);
    expect((await ask('txn_2', 49_000, 'EUR', client, second.sub)).status).toBe(200);
    const refused = await ask('txn_3', 49_000, 'EUR', client, second.sub);
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toMatch(/from this client/);
    const other = await harness.createClient('Other agent');
    expect((await ask('txn_3', 49_000, 'EUR', other, second.sub)).status).toBe(200);
  });

  it('lets exactly the allowed number of ten concurrent requests at the edge through', async () => {
    await start({ per_user: { max_count: 4 } });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(`txn_${i}`)));
    expect(answers.filter((reply) => reply.status === 200)).toHaveLength(4);
    expect(answers.filter((reply) => reply.body.error === 'velocity_exceeded')).toHaveLength(6);
    expect(await inbox()).toBe(4);
    expect((await userWindow()).count).toBe(4);
  });

  it('lets exactly as many of ten concurrent requests through as the amount limit holds', async () => {
    await start({ per_user: { max_amount_minor: { EUR: 150_000 } } });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(`txn_${i}`, 49_000)));
    expect(answers.filter((reply) => reply.status === 200)).toHaveLength(3);
    expect(refusals()).toHaveLength(7);
  });

  it('counts only requests that exist: a same-transaction retry is not counted, and a refusal gives its places back', async () => {
    await start({ per_user: { max_count: 2 }, per_client: { max_count: 1 } });
    const first = await ask('txn_1');
    for (let i = 0; i < 3; i++) expect((await ask('txn_1')).body.auth_req_id).toBe(first.body.auth_req_id);
    // Refused by this client's window after the user's window took a place: the place is given back…
    expect((await ask('txn_2')).body.error).toBe('velocity_exceeded');
    expect((await userWindow()).count).toBe(1);
    // …so another client can still ask this user once more, and then the user's count is full.
    const other = await harness.createClient('Other agent');
    expect((await ask('txn_2', 49_000, 'EUR', other)).status).toBe(200);
    const third = await harness.createClient('Third agent');
    expect((await ask('txn_3', 49_000, 'EUR', third)).body.error).toBe('velocity_exceeded');
    expect(await inbox()).toBe(2);
    // The two places are the two requests that exist: the first one's comes back out, one is left.
    expect(await harness.store.windowRemove(keys.window('default', 'velocity-user', customer.sub), velocityMemberOf(first.body.auth_req_id))).toBe(true);
    expect((await userWindow()).count).toBe(1);
  });
});
