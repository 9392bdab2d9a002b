/** Policy by blast radius (docs/blast-radius.md): velocity caps counted in records and recipients, not only money. */
import { keys } from '@countersign/server';
import type { AuthorizationDetails } from '@countersign/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { REACH_NAMES } from '../../../server/src/policy/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { deletion, message } from '../blast-radius-support.ts';
import { answer, bcAuthorize, pay, testPolicy } from '../policy-support.ts';
import type { Client } from './support.ts';

describe.each(['memory', 'redis'] as const)('velocity by records and recipients (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;

  afterEach(() => harness.close());
  async function start(limits: { per_user?: object; per_client?: object }) {
    const policy = testPolicy((p) => {
      Object.assign(p.limits.velocity.per_user, limits.per_user);
      Object.assign(p.limits.velocity.per_client, limits.per_client);
    });
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Cleanup agent');
  }
  const ask = (details: AuthorizationDetails, as: Client = client) => bcAuthorize(harness, as, { login_hint: customer.sub, details });
  /** The user's velocity window as it stands, read without adding to it (an offer that cannot fit). */
  const userWindow = () => harness.store.windowAdd(keys.window('default', 'velocity-user', customer.sub), { nowMs: harness.clock.now(), windowMs: 3_600_000, member: '-', maxCount: 0 });

  it('refuses many small deletions once the user’s window holds max_records, and lets them through once the window has passed', async () => {
    await start({ per_user: { max_records: 1_000 } });
    // Twenty deletions of 50 records each: small ones (standard, reversible), a thousand in all.
    for (let i = 0; i < 20; i++) expect((await ask(deletion(50, { transaction_id: `del_${i}`, reversible: true }))).status).toBe(200);
    const refused = await ask(deletion(1, { transaction_id: 'del_20', reversible: true }));
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toBe('Too many records to delete (at most 1000) for this user within 3600 seconds.');
    expect(await userWindow()).toMatchObject({ count: 20, totals: { [REACH_NAMES.records]: 1_000 } });
    // What reaches no records still fits: a message, a payment.
    expect((await ask(message(10))).status).toBe(200);
    expect((await ask(pay('txn_1'))).status).toBe(200);
    harness.clock.advance(3_599);
    expect((await ask(deletion(1, { transaction_id: 'del_20', reversible: true }))).status).toBe(429);
    harness.clock.advance(1);
    expect((await ask(deletion(1_000, { transaction_id: 'del_20', reversible: true }))).status).toBe(200);
    expect((await userWindow()).totals[REACH_NAMES.records]).toBe(1_000);
  });

  it('refuses one deletion larger than the cap, and counts the records of every deletion in a request', async () => {
    await start({ per_user: { max_records: 1_000 } });
    expect((await ask(deletion(1_001, { reversible: true }))).body.error).toBe('velocity_exceeded');
    expect((await userWindow()).count).toBe(0);
    expect((await ask([...deletion(600, { reversible: true }), ...deletion(400, { transaction_id: 'del_89', reversible: true })])).status).toBe(200);
    expect((await ask(deletion(1, { transaction_id: 'del_90', reversible: true }))).body.error).toBe('velocity_exceeded');
  });

  it('refuses messages once the client’s window holds max_recipients, across users, and lets them through once it has passed', async () => {
    await start({ per_client: { max_recipients: 5_000, window_seconds: 600 } });
    const second = await harness.enrollUser('customer_2');
    for (let i = 0; i < 5; i++) {
      const sub = i % 2 === 0 ? customer.sub : second.sub;
      expect((await bcAuthorize(harness, client, { login_hint: sub, details: message(1_000, { transaction_id: `msg_${i}` }) })).status).toBe(200);
    }
    const refused = await ask(message(1, { transaction_id: 'msg_5' }));
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toBe('Too many recipients (at most 5000) from this client within 600 seconds.');
    // Another client's window is its own.
    expect((await ask(message(1, { transaction_id: 'msg_5' }), await harness.createClient('Other agent'))).status).toBe(200);
    harness.clock.advance(600);
    expect((await ask(message(5_000, { transaction_id: 'msg_6' }))).status).toBe(200);
  });

  it('gives a denied deletion’s records back to the user’s window', async () => {
    await start({ per_user: { max_records: 1_000 } });
    const asked = await ask(deletion(1_000, { reversible: true }));
    expect((await ask(deletion(1, { transaction_id: 'del_89', reversible: true }))).body.error).toBe('velocity_exceeded');
    expect((await answer(harness, customer, asked.body.auth_req_id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await ask(deletion(1, { transaction_id: 'del_89', reversible: true }))).status).toBe(200);
  });
});
