/** Policy by blast radius (docs/blast-radius.md): a blast-radius tier applied by the running server. */
import type { AuthorizationDetails } from '@countersign/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { accessChange, deletion, message, recordChange } from '../blast-radius-support.ts';
import { answer, bcAuthorize, enrollWithRoles, pollToken, testPolicy } from '../policy-support.ts';
import type { Client } from './support.ts';

describe('a blast-radius tier on the test server (memory store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let reviewer: EnrolledUser;
  let client: Client;

  afterEach(() => harness.close());
  async function start() {
    harness = await createHarness({ env: { POLICY_FILE: testPolicy() } });
    customer = await harness.enrollUser('customer_1');
    reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);
    client = await harness.createClient('Ops agent');
  }
  const ask = (details: AuthorizationDetails) => bcAuthorize(harness, client, { login_hint: customer.sub, details });
  const stored = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request;

  it.each([
    ['a deletion of 10,000 records', deletion(10_000), 'high'],
    ['a reversible deletion of 10,000 records', deletion(10_000, { reversible: true }), 'elevated'],
    ['a reversible deletion of 9,999 records', deletion(9_999, { reversible: true }), 'standard'],
    ['a message to 100,000 recipients', message(100_000), 'high'],
    ['a message to 99,999 recipients', message(99_999), 'elevated'],
    ['a grant of admin', accessChange(null, 'admin'), 'high'],
    ['a change of a payout', recordChange(['payout_eur_minor']), 'high'],
    ['a change of a status', recordChange(['status']), 'standard'],
  ])('stores %s with its tier, its approvers and number matching as that tier says', async (_name, details, tier) => {
    await start();
    const asked = await ask(details);
    expect(asked.status).toBe(200);
    const request = await stored(asked.body.auth_req_id);
    const parties = { standard: ['customer'], elevated: ['customer'], high: ['customer', 'role:reviewer:finance'] }[tier];
    expect([request.tier, request.parties]).toEqual([tier, parties]);
    if (tier === 'standard') expect(asked.body).not.toHaveProperty('binding_code');
    else expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
  });

  it.each([
    ['a grant of admin', accessChange(null, 'admin')],
    ['a change of payout_eur_minor', recordChange(['payout_eur_minor', 'status'])],
  ])('leaves %s pending after the customer’s approval alone; the reviewer’s makes it approved', async (_name, details) => {
    await start();
    const asked = await ask(details);
    const id = asked.body.auth_req_id;
    const first = await answer(harness, customer, id, { decision: 'approve', code: asked.body.binding_code });
    expect(first.body.request).toMatchObject({
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await pollToken(harness, client, id)).body.error).toBe('authorization_pending');
    expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await pollToken(harness, client, id)).status).toBe(200);
  });
});
