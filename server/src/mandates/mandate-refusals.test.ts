import { CountersignError, type OutcomeReport } from '@countersign/shared';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { LIFECYCLE_STORES, lifecycleWorld } from '../requests/lifecycle.test-support.ts';
import { randomId } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import { changedFields, EARLIER, earlierRedemption, HASH, JTI, storeMandate, TOKEN_HASH, type MandateState } from './mandate-record.test-support.ts';
import { revokeMandate } from './revoke-mandate.ts';
import { reportSpendOutcome } from './spend-outcome.ts';
import { spendMandate } from './spend-mandate.ts';

/**
 * What the mandate capabilities answer over the lifecycle's refusals (docs/mandates.md "Spending",
 * "Revocation"): the reason code of a spend in each state, a revocation once, twice, of a one-off
 * approval and of a mandate past its end, and a spend's outcome once, again, in conflict and for a
 * redemption id never spent. On the memory store and on Redis.
 */

const CLIENT = { client_id: 'cli_test', tenant: 'default', name: 'Test' } as ClientRecord;
const PAYMENT = { type: 'payment', transaction_id: 'bill_1', amount_minor: 420, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Utilities' }, purpose: 'Electricity' };

/** The code a capability threw, or `ok`. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (error instanceof CountersignError) return `${error.status} ${error.code}`;
    throw error;
  }
}

describe.each(LIFECYCLE_STORES)('the mandate capabilities on the %s store', (_kind, makeStore) => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });
  async function world() {
    const store = await makeStore();
    stores.push(store);
    const w = lifecycleWorld(store);
    const audited: { type: string; reason?: string }[] = [];
    const deps = { ...w, ids: randomId, audit: { record: async (event: { type: string; reason?: string }) => void audited.push(event) } } as unknown as Deps;
    return { ...w, deps, audited };
  }
  const spendOn = (deps: Deps, record: Awaited<ReturnType<typeof storeMandate>>) =>
    spendMandate(deps, { text: 'the.issued.token', hash: TOKEN_HASH, authentic: false, legacy: false, claims: { sub: 'alice', client_id: CLIENT.client_id, tenant: CLIENT.tenant, scope: 'openid', auth_req_id: record.id, authorization_details: [record.details], details_hash: HASH, jti: JTI } }, record.details, {
      details: [PAYMENT],
      numbersExact: true,
      depth: 3,
    });

  it.each([
    ['approved', 'ok'],
    ['pending', '401 invalid_token'],
    ['denied', '401 invalid_token'],
    ['expired', '403 mandate_expired'],
    ['redeemed', '401 invalid_token'],
    ['revoked', '403 mandate_revoked'],
  ] as [MandateState, string][])('a spend on a mandate %s answers %s, and a refusal changes nothing', async (state, answer) => {
    const w = await world();
    const record = await storeMandate(w.store, state, w.clock.now());
    expect(await codeOf(spendOn(w.deps, record))).toBe(answer);
    await w.background.drain();
    const changed = Object.keys(changedFields(record.before, (await w.store.hashGet(record.key))!));
    expect(changed.sort()).toEqual(answer === 'ok' ? ['ms:n:all', expect.stringMatching(/^ms:r:rdm_/), 'ms:t:all:EUR', 'ms:x:bill_1'] : []);
  });

  it('refuses a spend on a mandate past its end that the sweep has not marked yet (mandate_expired)', async () => {
    const w = await world();
    const record = await storeMandate(w.store, 'approved', w.clock.now(), { endsAt: w.clock.now() });
    expect(await codeOf(spendOn(w.deps, record))).toBe('403 mandate_expired');
    expect(await w.store.hashGet(record.key)).toEqual(record.before);
  });

  it('revokes an approved mandate once: expired, mandate_revoked; again answers it as it is, delivering nothing more', async () => {
    const w = await world();
    const now = w.clock.now();
    const record = await storeMandate(w.store, 'approved', now);
    const revoked = await revokeMandate(w.deps, { tenant: 'default', auth_req_id: record.id, by: { channel: 'admin' } });
    expect(revoked).toMatchObject({ state: 'expired', expiry_reason: 'mandate_revoked', revoked_at: now, revoked_by: 'admin' });
    await w.background.drain();
    const once = (await w.store.hashGet(record.key))!;
    const again = await revokeMandate(w.deps, { tenant: 'default', auth_req_id: record.id, by: { channel: 'device', device_id: 'dev_2' } });
    expect(again).toMatchObject({ state: 'expired', expiry_reason: 'mandate_revoked', revoked_by: 'admin' });
    await w.background.drain();
    expect(await w.store.hashGet(record.key)).toEqual(once);
    expect(w.delivered.map((entry) => entry.op)).toEqual(['revoke']);
  });

  it('does not revoke a one-off approval (not_found), nor a pending, denied or ended mandate (request_not_pending)', async () => {
    const w = await world();
    const now = w.clock.now();
    const records = [await storeMandate(w.store, 'approved', now, { oneOff: true }), await storeMandate(w.store, 'pending', now), await storeMandate(w.store, 'denied', now), await storeMandate(w.store, 'expired', now), await storeMandate(w.store, 'approved', now, { endsAt: now })];
    const answers = [];
    for (const record of records) answers.push(await codeOf(revokeMandate(w.deps, { tenant: 'default', auth_req_id: record.id, by: { channel: 'admin' } })));
    expect(answers).toEqual(['404 not_found', '409 request_not_pending', '409 request_not_pending', '409 request_not_pending', '409 request_not_pending']);
    for (const record of records) expect(await w.store.hashGet(record.key)).toEqual(record.before);
    await w.background.drain();
    expect(w.delivered).toEqual([]);
  });

  it("takes a spend's outcome once, accepts the same again, refuses another (audited) and an unknown redemption id", async () => {
    const w = await world();
    const now = w.clock.now();
    const record = await storeMandate(w.store, 'revoked', now);
    const report = async (redemptionId: string, outcome: OutcomeReport) => reportSpendOutcome(w.deps, CLIENT, (await w.store.hashGet(record.key))!, redemptionId, outcome);
    const rdm = earlierRedemption(record.id);

    expect(await report(rdm, { status: 'succeeded', reference: 'pay_1' })).toEqual({ redemption_id: rdm, auth_req_id: record.id, outcome: { status: 'succeeded', reference: 'pay_1' } });
    await w.background.drain();
    const once = (await w.store.hashGet(record.key))!;
    expect(JSON.parse(once[`ms:o:${EARLIER}`]!)).toEqual({ status: 'succeeded', reference: 'pay_1', at: now });

    expect(await report(rdm, { status: 'succeeded', reference: 'pay_1' })).toEqual({ redemption_id: rdm, auth_req_id: record.id, outcome: { status: 'succeeded', reference: 'pay_1' } });
    expect(await codeOf(report(rdm, { status: 'failed', reason: 'Declined' }))).toBe('409 outcome_conflict');
    expect(await codeOf(report(rdm, { status: 'succeeded', reference: 'pay_2' }))).toBe('409 outcome_conflict');
    expect(await codeOf(report(`rdm_unknown0000000.${record.id}`, { status: 'succeeded' }))).toBe('404 not_found');
    await w.background.drain();
    expect(await w.store.hashGet(record.key)).toEqual(once);
    expect(w.delivered.map((entry) => entry.op)).toEqual(['reportSpendOutcome']);
    expect(w.audited.map((event) => [event.type, event.reason])).toEqual([
      ['refused', 'outcome_conflict'],
      ['refused', 'outcome_conflict'],
    ]);
  });
});
