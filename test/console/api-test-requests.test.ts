import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { toolCall } from '../support/tool-call.ts';

// Test requests from the console's client: the admin token, the same client each time, and the agents' own rules.

describe('POST /api/admin/test-requests', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await createHarness();
    await harness.enrollUser('alice');
  });
  afterAll(() => harness?.close());

  it('needs the admin token', async () => {
    const answer = await harness.call('POST', '/api/admin/test-requests', { body: { login_hint: 'alice', authorization_details: payment() } });
    expect(answer.status).toBe(401);
  });

  it("creates a request from the tenant's console client, the same one every time", async () => {
    const first = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t1' }), requested_expiry: 60 });
    const second = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t2' }) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ auth_req_id: expect.any(String), client_id: expect.stringMatching(/^cli_/), expires_in: 60 });
    expect(second.body.client_id).toBe(first.body.client_id);
    const stored = await harness.admin('GET', `/requests/${first.body.auth_req_id}`);
    expect(stored.body.request).toMatchObject({ state: 'pending', sub: 'alice', client_name: 'Countersign console (test)' });
  });

  it("sends a tool call as a test request, its float argument kept, shown as the agent's would be", async () => {
    const call = toolCall({ transaction_id: 'mcp_t1', arguments: { entityNames: ['Alice'], ratio: 1.5 } });
    const created = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: call });
    expect(created.status).toBe(201);
    const stored = await harness.admin('GET', `/requests/${created.body.auth_req_id}`);
    expect(stored.body.request.authorization_details).toEqual(call);
    const oversize = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: toolCall({ transaction_id: 'mcp_t2', arguments: { text: 'x'.repeat(9000) } }) });
    expect([oversize.status, oversize.body.error]).toEqual([400, 'invalid_authorization_details']);
  });

  it("holds test requests to the agents' rules", async () => {
    const badDetails = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: [{ type: 'payment', amount_minor: -1 }] });
    expect(badDetails.body.error).toBe('invalid_authorization_details');
    const badBinding = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t3' }), binding_message: 'emoji 🙂' });
    expect(badBinding.body.error).toBe('invalid_binding_message');
    const unknown = await harness.admin('POST', '/test-requests', { login_hint: 'nobody', authorization_details: payment({ transaction_id: 'txn_t4' }) });
    expect(unknown.body.error).toBe('unknown_user_id');
    const extra = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment(), client_id: 'cli_x' });
    expect(extra.status).toBe(400);
  });

  it('refuses an action member named __proto__, as /bc-authorize does, instead of dropping it', async () => {
    // Raw JSON: JSON.parse makes it an own member, which a zod record skips without a word.
    const action = JSON.stringify(payment({ transaction_id: 'txn_t5' })[0]).replace('{', '{"__proto__":{"amount_minor":1},');
    const sent = await harness.call('POST', '/api/admin/test-requests', { body: `{"login_hint":"alice","authorization_details":[${action}]}`, headers: { authorization: `Bearer ${harness.adminToken}` } });
    expect([sent.status, sent.body.error, sent.body.error_description]).toEqual([400, 'invalid_authorization_details', 'authorization_details[0]: `__proto__` is not a member of payment']);
  });
});
