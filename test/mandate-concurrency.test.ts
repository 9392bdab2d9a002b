import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { device } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './support/mandate.ts';

/**
 * Spends of one mandate racing each other and its revocation (docs/mandates.md): the bounds hold
 * under concurrency because each spend is one compare-and-swap on the mandate's record (one Lua
 * script, one key) that checks and raises the period's counters in the same step. On the run's
 * Redis, from one instance and from two instances sharing it (two `createDeps` over two
 * connections, as two processes behind a load balancer); and on the run's 3-master Redis Cluster,
 * where the mandate's keys share its hash tag.
 */
describe.each(['redis', 'cluster'] as const)("concurrent spends of one mandate on the run's %s", (storeKind) => {
  let a: Harness;
  let b: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };

  beforeEach(async () => {
    a = await createHarness({ store: storeKind });
    b = await a.instance();
    customer = await a.enrollUser('customer_1');
    client = await a.createClient('Refund bot');
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  // EUR 1.00 a spend, EUR 37.00 in all: room for exactly 37.
  const details = () => mandate(a.clock.now(), { limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 100, total_minor: 3700 }] });

  async function race(instances: Harness[]) {
    const { token, auth_req_id } = await approvedMandate(a, client, customer, details());
    // How often each instance asks to record a `spent` event, each taking 20 ms as on a loaded
    // store, so that deliveries overlap: an entry in flight on the same instance is waited for by
    // the later spends, not delivered again by each of them.
    const recorded: number[] = instances.map(() => 0);
    instances.forEach((instance, i) => {
      const audit = instance.deps.audit;
      instance.deps.audit = {
        ...audit,
        async record(event, options) {
          if (event.type === 'spent') {
            recorded[i]! += 1;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return audit.record(event, options);
        },
      };
    });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => spend(instances[i % instances.length]!, client, token, spendPayment(`refund_${String(i).padStart(3, '0')}`))));
    const winners = answers.filter((answer) => answer.status === 200);
    const losers = answers.filter((answer) => answer.status !== 200);
    expect(winners).toHaveLength(37);
    expect(new Set(losers.map((answer) => `${answer.status} ${answer.body.error}`))).toEqual(new Set(['403 mandate_exceeded']));
    const shown = (await device(a, customer, 'GET', `/mandates/${auth_req_id}`)).body.mandate;
    expect([shown.spends.length, shown.remaining[0].spent.amount_minor, shown.remaining[0].left.amount_minor]).toEqual([37, 3700, 0]);
    expect(new Set(shown.spends.map((spent: { redemption_id: string }) => spent.redemption_id)).size).toBe(37);
    // One instance: each spend recorded once live. Two: an entry in flight on the other instance may be delivered again (each lands once).
    if (instances.length === 1) expect(recorded[0]).toBe(37);
    await Promise.all([a.drain(), b.drain()]);
    // Under load a live delivery may fail (its store calls share its request's deadline); the spend
    // stands with its outbox entry, and the reconciler delivers it: run it as the sweep's lease holder would.
    a.clock.advance(60);
    while ((await a.deps.outbox.reconcile()) > 0);
    await Promise.all([a.drain(), b.drain()]);
    const events = (await a.admin('GET', `/audit?auth_req_id=${auth_req_id}`)).body.events as { type: string; reason?: string }[];
    expect(events.filter((event) => event.type === 'spent')).toHaveLength(37);
    expect(events.filter((event) => event.type === 'refused' && event.reason === 'mandate_exceeded')).toHaveLength(63);
  }

  it('100 concurrent spends against a total that allows 37 have exactly 37 winners', () => race([a]));

  it('100 concurrent spends across two instances sharing Redis have exactly 37 winners', () => race([a, b]));

  it.each(['revocation first', 'spend first'] as const)('a revocation racing a spend (%s): after it returns, no spend succeeds', async (order) => {
    const { token, auth_req_id } = await approvedMandate(a, client, customer, details());
    const revoke = () => b.admin('POST', `/mandates/${auth_req_id}/revoke`);
    const pay = (i: number) => spend(a, client, token, spendPayment(`race_${i}`));
    const answers = order === 'revocation first' ? await Promise.all([revoke(), pay(1)]) : await Promise.all([pay(1), revoke()]).then(([p, r]) => [r, p]);
    const [first, second] = [answers[0]!, answers[1]!];
    expect(first.status).toBe(200);
    // The racing spend either landed before the revocation or was refused by it; never anything else.
    expect([200, 403]).toContain(second.status);
    if (second.status === 403) expect(second.body.error).toBe('mandate_revoked');
    // After the revocation has returned, every spend is refused, on either instance.
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => spend(i % 2 ? a : b, client, token, spendPayment(`after_${i}`))));
    expect(after.map((answer) => answer.body.error)).toEqual(Array(10).fill('mandate_revoked'));
    const shown = (await device(a, customer, 'GET', `/mandates/${auth_req_id}`)).body.mandate;
    expect([shown.status, shown.spends.length]).toEqual(['revoked', second.status === 200 ? 1 : 0]);
  });

  it('many spends racing one revocation: those that won were spent before it, in the audit order too', async () => {
    const { token, auth_req_id } = await approvedMandate(a, client, customer, details());
    const answers = await Promise.all([...Array.from({ length: 20 }, (_, i) => spend(i % 2 ? a : b, client, token, spendPayment(`r_${i}`))), b.admin('POST', `/mandates/${auth_req_id}/revoke`)]);
    const spends = answers.slice(0, 20);
    expect(answers[20]!.status).toBe(200);
    expect(spends.every((answer) => answer.status === 200 || answer.body.error === 'mandate_revoked')).toBe(true);
    await Promise.all([a.drain(), b.drain()]);
    const events = (await a.admin('GET', `/audit?auth_req_id=${auth_req_id}`)).body.events as { type: string }[];
    const revokedAt = events.findIndex((event) => event.type === 'mandate_revoked');
    const spentAt = events.flatMap((event, i) => (event.type === 'spent' ? [i] : []));
    expect(spentAt).toHaveLength(spends.filter((answer) => answer.status === 200).length);
    expect(spentAt.every((i) => i < revokedAt)).toBe(true);
  });
});
