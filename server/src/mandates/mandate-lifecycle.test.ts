import { afterAll, describe, expect, it } from 'vitest';
import { MANDATE_FIELDS, MANDATE_OPS, outboxOf, SPEND_GUARDS, TRANSITIONS, type Lifecycle, type MandateSpend, type SwapResult } from '../requests/index.ts';
import { LIFECYCLE_STORES, lifecycleWorld } from '../requests/lifecycle.test-support.ts';
import type { Store } from '../store/index.ts';
import { changedFields, EARLIER, earlierRedemption, HASH, JTI, MANDATE_STATES, storeMandate, type MandateState } from './mandate-record.test-support.ts';

/**
 * The mandate operations of the lifecycle (`spend`, `revoke`, `reportSpendOutcome`, `flagSpendOutcome`), as
 * server/src/requests/lifecycle.test.ts walks the others: every state of a mandate's record (the
 * fixed states and `revoked`) × every mandate operation, on the memory store and on Redis. An
 * operation applies exactly in the states its `from` lists, writes exactly its fields, its outbox
 * entry and one delivery; anywhere else it is refused by its state guard and changes nothing.
 */

type MandateOp = (typeof MANDATE_OPS)[number];
const NEW_TX = 'bill_1';

function newSpend(authReqId: string, now: number): MandateSpend {
  return { redemption_id: `rdm_new00000000000.${authReqId}`, transaction_id: NEW_TX, amount_minor: 420, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Utilities' }, at: now, period: 'all', payment_hash: 'hash_of_bill_1', purpose: 'Electricity' };
}

function apply(lifecycle: Lifecycle, op: MandateOp, ref: { tenant: string; auth_req_id: string }, now: number): Promise<SwapResult> {
  switch (op) {
    case 'spend':
      return lifecycle.spend(ref, { jti: JTI, details_hash: HASH, spend: newSpend(ref.auth_req_id, now), total_max: 3700 }, now);
    case 'revoke':
      return lifecycle.revoke(ref, { by: 'dev_1', channel: 'device' }, now);
    case 'reportSpendOutcome':
      return lifecycle.reportSpendOutcome(ref, { redemption_id: earlierRedemption(ref.auth_req_id), transaction_id: EARLIER }, { status: 'succeeded', reference: 'pay_1' }, now);
    case 'flagSpendOutcome':
      return lifecycle.flagSpendOutcome(ref, { redemption_id: earlierRedemption(ref.auth_req_id), transaction_id: EARLIER, spent_at: now - 5000 }, now);
  }
}

/** What each operation writes when it applies, and the state it leaves. */
function written(op: MandateOp, authReqId: string, now: number, state: MandateState) {
  switch (op) {
    case 'spend': {
      const spend = newSpend(authReqId, now);
      return { state: 'approved', fields: { [MANDATE_FIELDS.spend(NEW_TX)]: JSON.stringify(spend), [MANDATE_FIELDS.redemption(spend.redemption_id)]: NEW_TX, [MANDATE_FIELDS.total('all', 'EUR')]: '520', [MANDATE_FIELDS.count('all')]: '2' } };
    }
    case 'revoke':
      return { state: 'expired', fields: { state: 'expired', expired_at: String(now), expiry_reason: 'mandate_revoked', revoked_at: String(now), revoked_by: 'dev_1' } };
    case 'reportSpendOutcome':
      // The state is not touched: an outcome may come after the mandate ended or was revoked.
      return { state: state === 'revoked' ? 'expired' : state, fields: { [MANDATE_FIELDS.outcome(EARLIER)]: JSON.stringify({ status: 'succeeded', reference: 'pay_1', at: now }) } };
    case 'flagSpendOutcome':
      // Nor here: the flag says the outcome is overdue, it stays unknown.
      return { state: state === 'revoked' ? 'expired' : state, fields: { [MANDATE_FIELDS.flagged(EARLIER)]: String(now) } };
  }
}

describe.each(LIFECYCLE_STORES)('the mandate operations of the lifecycle on the %s store', (_kind, makeStore) => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });
  async function world() {
    const store = await makeStore();
    stores.push(store);
    return lifecycleWorld(store);
  }

  const cases = MANDATE_STATES.flatMap((state) => MANDATE_OPS.map((op) => [state, op] as const));

  it.each(cases)('%s × %s', async (state, op) => {
    const w = await world();
    const now = w.clock.now();
    const { id, key, ref, before } = await storeMandate(w.store, state, now);

    const result = await apply(w.lifecycle, op, ref, now);
    await w.background.drain();
    const after = (await w.store.hashGet(key))!;
    const applies = (TRANSITIONS[op].from as readonly string[]).includes(state === 'revoked' ? 'expired' : state);

    expect(result.ok).toBe(applies);
    if (!applies) {
      expect(after).toEqual(before);
      expect(w.delivered).toEqual([]);
      // Refused by a guard on the state (spend-mandate.ts answers a spend from it): a spend's and a
      // revocation's first; an outcome's (reported or flagged) are one `ne` each for pending, denied and redeemed.
      const stateGuard = op === 'reportSpendOutcome' || op === 'flagSpendOutcome' ? ['pending', 'denied', 'redeemed'].indexOf(state) : 0;
      expect(result.ok === false && result.failedGuard).toBe(stateGuard);
      if (op === 'spend') expect(SPEND_GUARDS[stateGuard]).toBe('state');
      return;
    }
    const expected = written(op, id, now, state);
    expect(changedFields(before, after)).toEqual(expected.fields);
    expect(after.state).toBe(expected.state);
    expect(w.delivered).toEqual([{ op, seq: 1, state: expected.state }]);
    expect(outboxOf(after)).toEqual([]);
  });

  it('a second revocation, spend of the same transaction_id, outcome or flag of the same spend is refused and delivers nothing more', async () => {
    const w = await world();
    const now = w.clock.now();
    for (const op of MANDATE_OPS) {
      const { ref, key } = await storeMandate(w.store, 'approved', now);
      expect((await apply(w.lifecycle, op, ref, now)).ok).toBe(true);
      await w.background.drain();
      const once = (await w.store.hashGet(key))!;
      const again = await apply(w.lifecycle, op, ref, now);
      expect([op, again.ok]).toEqual([op, false]);
      expect(await w.store.hashGet(key)).toEqual(once);
    }
    await w.background.drain();
    expect(w.delivered.map((entry) => entry.op)).toEqual(['spend', 'revoke', 'reportSpendOutcome', 'flagSpendOutcome']);
  });

  it('revokes no one-off approval, and no mandate past its end', async () => {
    const w = await world();
    const now = w.clock.now();
    const oneOff = await storeMandate(w.store, 'approved', now, { oneOff: true });
    const ended = await storeMandate(w.store, 'approved', now, { endsAt: now });
    for (const record of [oneOff, ended]) {
      expect((await w.lifecycle.revoke(record.ref, { by: 'admin', channel: 'admin' }, now)).ok).toBe(false);
      expect(await w.store.hashGet(record.key)).toEqual(record.before);
    }
    await w.background.drain();
    expect(w.delivered).toEqual([]);
  });

  it('flags no spend whose outcome has arrived', async () => {
    const w = await world();
    const now = w.clock.now();
    const { ref, key } = await storeMandate(w.store, 'approved', now);
    expect((await apply(w.lifecycle, 'reportSpendOutcome', ref, now)).ok).toBe(true);
    await w.background.drain();
    const reported = (await w.store.hashGet(key))!;
    expect((await apply(w.lifecycle, 'flagSpendOutcome', ref, now)).ok).toBe(false);
    expect(await w.store.hashGet(key)).toEqual(reported);
  });

  it('takes no outcome for a redemption id the mandate never spent', async () => {
    const w = await world();
    const now = w.clock.now();
    const { ref, key, before } = await storeMandate(w.store, 'approved', now);
    const unknown = await w.lifecycle.reportSpendOutcome(ref, { redemption_id: `rdm_unknown0000000.${ref.auth_req_id}`, transaction_id: EARLIER }, { status: 'failed' }, now);
    expect(unknown.ok).toBe(false);
    expect(await w.store.hashGet(key)).toEqual(before);
  });
});
