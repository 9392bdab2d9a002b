import { createAgentClient } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAction, type SampleType } from '../../server/src/console/index.ts';
import { testPolicy } from '../guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';

// The console's samples of each action type, made by the server: created, shown and previewed as the phone shows them.

describe('POST /api/admin/test-requests with a sample of each action type', () => {
  let harness: Harness;
  let alice: EnrolledUser;

  beforeAll(async () => {
    harness = await createHarness({ env: { POLICY_FILE: testPolicy() } });
    alice = await harness.enrollUser('alice');
  });
  afterAll(() => harness?.close());

  const cases: [string, string, 'standard' | 'elevated'][] = [
    ['payment', 'Pay EUR 490.00 to ACME Ltd', 'standard'],
    ['deletion', 'Delete 1,200 customer records in crm', 'elevated'],
    ['message', 'Send email to 12,000 recipients', 'elevated'],
    ['access_change', 'Change Bo Li from viewer to editor on Payments prod', 'standard'],
    ['record_change', 'Change campaign Auto EU (cmp_4): 2 fields', 'standard'],
  ];

  it.each(cases)("creates a %s request from the server's sample, shown on the phone as the server computes it", async (type, title, tier) => {
    const created = await harness.admin('POST', '/test-requests', { login_hint: 'alice', sample: type });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (tier === 'elevated') expect(created.body.binding_code).toMatch(/^[1-9][0-9]$/);
    else expect(created.body).not.toHaveProperty('binding_code');
    const stored = (await harness.admin('GET', `/requests/${created.body.auth_req_id}`)).body.request;
    expect(stored).toMatchObject({ state: 'pending', client_name: 'Countersign console (test)', tier });
    expect(stored.authorization_details).toEqual([sampleAction(type as SampleType, stored.authorization_details[0].transaction_id)]);
    const inbox = (await harness.call('GET', '/api/device/requests', { headers: { cookie: alice.cookie } })).body.requests as { auth_req_id: string; actions: { type: string; title: string }[] }[];
    const listed = inbox.find((request) => request.auth_req_id === created.body.auth_req_id) as { actions: unknown; test?: boolean } | undefined;
    expect(listed?.actions).toMatchObject([{ type, title }]);
    // The device views mark it as the console's test, from its client.
    expect(listed?.test).toBe(true);
    const view = await harness.call('GET', `/api/device/requests/${created.body.auth_req_id}`, { headers: { cookie: alice.cookie } });
    expect(view.body.request.test).toBe(true);
    // A second send is a second request: a fresh transaction_id each time.
    const again = await harness.admin('POST', '/test-requests', { login_hint: 'alice', sample: type });
    expect(again.status).toBe(201);
    expect(again.body.auth_req_id).not.toBe(created.body.auth_req_id);
  });

  it('does not mark an agent’s request as a test, though its client has the console’s name', async () => {
    const namesake = await harness.createClient('Countersign console (test)');
    const agent = createAgentClient({ issuer: harness.issuer, clientId: namesake.client_id, clientSecret: namesake.client_secret, fetch: harness.fetch });
    const asked = await agent.requestApproval({ login_hint: 'alice', authorization_details: [{ type: 'payment', transaction_id: 'txn_namesake', amount_minor: 100, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Real' }] });
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: alice.cookie } });
    expect(view.body.request.client_name).toBe('Countersign console (test)');
    expect(view.body.request.test).toBe(false);
  });

  it('previews every sample as the phone would show it, less its transaction id', async () => {
    const answer = await harness.admin('GET', '/test-requests/samples');
    expect(answer.status).toBe(200);
    expect(answer.body.samples.map((sample: { type: string; display: { title: string } }) => [sample.type, sample.display.title])).toEqual(cases.map(([type, title]) => [type, title]));
    const deletion = answer.body.samples.find((sample: { type: string }) => sample.type === 'deletion');
    expect(deletion.display.warnings).toEqual(['Cannot be undone']);
    expect(deletion.display.fields).toContainEqual({ label: 'Ids', value: 'cus_1, cus_2, cus_3, cus_4, cus_5 and 1,195 more' });
    expect(JSON.stringify(answer.body)).not.toContain('Transaction');
    expect((await harness.call('GET', '/api/admin/test-requests/samples')).status).toBe(401);
  });

  it('takes either authorization_details or a sample, not both or neither, and no type it has no sample of', async () => {
    for (const body of [{ login_hint: 'alice' }, { login_hint: 'alice', sample: 'deletion', authorization_details: payment({ transaction_id: 'txn_both' }) }, { login_hint: 'alice', sample: 'tool_call' }, { login_hint: 'alice', sample: 'refund' }]) {
      const refused = await harness.admin('POST', '/test-requests', body);
      expect([refused.status, refused.body.error], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
  });
});
