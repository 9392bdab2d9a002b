import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';

/** The admin endpoint behind the CLI's `requests pending`, on its own. */
describe('GET /api/admin/requests?state=pending', () => {
  let harness: Harness;
  let agent: AgentClient;

  beforeAll(async () => {
    harness = await createHarness();
    await harness.enrollUser('erin');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterAll(() => harness?.close());

  it('lists only state=pending, with a bounded limit', async () => {
    expect((await harness.admin('GET', '/requests')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=approved')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&limit=0')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&limit=501')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&tenant=Bad{tenant}')).body.error).toBe('invalid_request');
    expect((await harness.call('GET', '/api/admin/requests?state=pending')).status).toBe(401);
  });

  it('settles a request past its deadline instead of listing it', async () => {
    const asked = await agent.requestApproval({ login_hint: 'erin', authorization_details: payment({ transaction_id: 'txn_due' }), requested_expiry: 30 });
    const kept = await agent.requestApproval({ login_hint: 'erin', authorization_details: payment({ transaction_id: 'txn_kept' }), requested_expiry: 300 });
    harness.clock.advance(31);
    const list = await harness.admin('GET', '/requests?state=pending&limit=1');
    expect(list.body.requests.map((request: { auth_req_id: string }) => request.auth_req_id)).toEqual([kept.auth_req_id]);
    expect(list.body.truncated).toBe(false);
    const audit = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.map((event: { type: string }) => event.type)).toContain('expired');
  });
});
