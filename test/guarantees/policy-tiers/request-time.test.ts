/** Policy tiers (docs/guarantees.md "Policy tiers"): the tier decided when a request is made, stored with it and setting its lifetimes; no agent chooses it. */
import type { CountersignError } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { payment } from '../../support/payment.ts';
import { answer, bcAuthorize, device, pay, pollToken, testPolicy } from '../policy-support.ts';

describe.each(['memory', 'redis'] as const)('a tier decided at request time (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };
  const shortTier = (policy: any) => {
    policy.tiers[0].request_expiry_seconds = 120;
    policy.tiers[0].token_lifetime_seconds = 90;
  };

  async function start(env: Record<string, string> = {}) {
    harness = await createHarness({ store: storeKind, env });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Support agent');
  }
  afterEach(() => harness.close());

  it('stores the tier with the request and shows it on the device and to the operator', async () => {
    await start();
    const small = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1', 49_000) })).body.auth_req_id;
    // The high tier needs a finance reviewer, and a request nobody could approve is refused (no_approver).
    expect((await harness.admin('POST', '/users', { sub: 'rita', roles: ['reviewer:finance'] })).status).toBe(201);
    const large = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2', 2_000_000) })).body.auth_req_id;
    const smallView = await device(harness, customer, 'GET', `/requests/${small}`);
    expect(smallView.body.request).toMatchObject({ tier: 'standard', approvals: [{ party: 'customer', label: 'Customer', status: 'waiting', approved_at: null }], number_matching: null, viewer: { party: 'customer', can_decide: true, can_report: true } });
    const admin = await harness.admin('GET', `/requests/${large}`);
    expect(admin.body.request).toMatchObject({ tier: 'high', parties: ['customer', 'role:reviewer:finance'], approvals: [], token_lifetime: 120, state: 'pending' });
    expect(admin.body.request).not.toHaveProperty('binding_code');
    expect(admin.body.display).toMatchObject({ tier: 'high', viewer: null, number_matching: null });
    const audit = await harness.admin('GET', `/audit?auth_req_id=${large}`);
    expect(audit.body.events[0]).toMatchObject({ type: 'proposed', detail: { tier: 'high', parties: 'customer role:reviewer:finance', number_matching: true, expires_in: 600 } });
  });

  it('takes the tier’s request expiry as the default and caps requested_expiry with it', async () => {
    await start({ POLICY_FILE: testPolicy(shortTier) });
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') })).body.expires_in).toBe(120);
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2'), requested_expiry: 60 })).body.expires_in).toBe(60);
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_3'), requested_expiry: 500 })).body.expires_in).toBe(120);
  });

  it('starts the approval token’s lifetime from the tier at the approval, and refuses it after', async () => {
    await start({ POLICY_FILE: testPolicy(shortTier) });
    const id = (await bcAuthorize(harness, client, { login_hint: customer.sub })).body.auth_req_id;
    expect((await answer(harness, customer, id, { decision: 'approve' })).status).toBe(200);
    const token = await pollToken(harness, client, id);
    expect([token.status, token.body.expires_in]).toEqual([200, 90]);
    const stored = await harness.admin('GET', `/requests/${id}`);
    expect(Date.parse(stored.body.request.approval_expires_at) - Date.parse(stored.body.request.decided_at)).toBe(90_000);
    const agent = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, clientSecret: client.client_secret, fetch: harness.fetch });
    harness.clock.advance(90);
    const late = await agent.redeem(token.body.access_token, payment()).then(
      () => null,
      (error: CountersignError) => error,
    );
    expect(late?.code).toBe('invalid_token');
  });

  it('lets no agent choose its tier: a tier parameter or a tier member in the action is refused, storing nothing', async () => {
    await start();
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    const form = new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()), tier: 'standard' });
    const withParam = await harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
    expect([withParam.status, withParam.body.error]).toEqual([400, 'invalid_request']);
    const withMember = await bcAuthorize(harness, client, { login_hint: customer.sub, details: payment({ amount_minor: 2_000_000, tier: 'standard' }) });
    expect([withMember.status, withMember.body.error]).toEqual([400, 'invalid_authorization_details']);
    expect((await device(harness, customer, 'GET', '/requests')).body.requests).toEqual([]);
  });
});
