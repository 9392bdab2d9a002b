import type { AuthorizationDetails } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';

/**
 * The world moves (docs/audit.md): an action may carry a precondition (a record and its version).
 * The person sees it; at `/redeem` the executor states the version it reads now, and a missing or
 * different one is refused with 409 `stale_record`: nothing changes, and the refusal is audited.
 */

const PRECONDITION = { record: 'order:1042', version: '7' };

describe.each(['memory', 'redis'] as const)('stale_record (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let basic: string;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Refund agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    // client_secret_basic: id and secret form-urlencoded, then base64 (RFC 6749 §2.3.1).
    basic = `Basic ${Buffer.from(`${encodeURIComponent(credentials.client_id)}:${encodeURIComponent(credentials.client_secret)}`).toString('base64')}`;
  });
  afterEach(() => harness.close());

  async function approved(details: AuthorizationDetails) {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { auth_req_id: asked.auth_req_id, token: polled.token.access_token };
  }

  const redeem = (body: Record<string, unknown>) => harness.call('POST', '/redeem', { body, headers: { authorization: basic } });

  it('shows the precondition to the person, as a field of the action', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ precondition: PRECONDITION }) });
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    expect(view.body.request.actions[0].fields).toContainEqual({ label: 'Only if unchanged', value: 'order:1042 at version 7' });
  });

  it('refuses a redeem whose record moved on or is not stated, changes nothing, audits it, and redeems at the approved version', async () => {
    const details = payment({ precondition: PRECONDITION });
    const { auth_req_id, token } = await approved(details);

    const moved = await redeem({ token, authorization_details: details, current_versions: { 'order:1042': '8' } });
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ error: 'stale_record', records: ['order:1042'] });
    const unstated = await redeem({ token, authorization_details: details, current_versions: { 'order:999': '7' } });
    expect([unstated.status, unstated.body.error]).toEqual([409, 'stale_record']);
    const absent = await redeem({ token, authorization_details: details });
    expect([absent.status, absent.body.error]).toEqual([409, 'stale_record']);

    expect((await agent.getRequest(auth_req_id)).state).toBe('approved');
    const stored = await harness.admin('GET', `/requests/${auth_req_id}`);
    expect(stored.body.request.redemption_id).toBeUndefined();
    const refusals = (await harness.admin('GET', `/audit?auth_req_id=${auth_req_id}`)).body.events.filter((event: { type: string }) => event.type === 'refused');
    expect(refusals).toHaveLength(3);
    expect(refusals[0]).toMatchObject({ reason: 'stale_record', channel: 'agent', detail: { endpoint: 'redeem', records: 'order:1042' } });

    const current = await redeem({ token, authorization_details: details, current_versions: { 'order:1042': '7', 'order:999': '3' } });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ status: 'redeemed', authorization_details: details });
  });

  it('binds the precondition into details_hash: dropping or changing it is approval_mismatch', async () => {
    const details = payment({ precondition: PRECONDITION });
    const { token } = await approved(details);
    const dropped = await redeem({ token, authorization_details: payment(), current_versions: { 'order:1042': '8' } });
    expect([dropped.status, dropped.body.error]).toEqual([400, 'approval_mismatch']);
    const changed = await redeem({ token, authorization_details: payment({ precondition: { record: 'order:1042', version: '8' } }), current_versions: { 'order:1042': '8' } });
    expect([changed.status, changed.body.error]).toEqual([400, 'approval_mismatch']);
  });

  it('ignores current_versions for an action without a precondition', async () => {
    const { token } = await approved(payment());
    expect((await redeem({ token, authorization_details: payment(), current_versions: { 'order:1042': '8' } })).status).toBe(200);
  });

  it('refuses a malformed precondition at request time and malformed current_versions at redeem', async () => {
    for (const bad of [{ record: 'order 1042', version: '7' }, { record: 'order:1042' }, { record: 'order:1042', version: '7', extra: true }, { record: 'order:1042', version: 'seven eight' }]) {
      const asked = await harness.call('POST', '/bc-authorize', {
        body: new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment({ precondition: bad })) }).toString(),
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([asked.status, asked.body.error]).toEqual([400, 'invalid_authorization_details']);
    }
    const { token } = await approved(payment({ precondition: PRECONDITION }));
    for (const versions of [{ 'order 1042': '7' }, { 'order:1042': 7 }, Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`r${i}`, '1']))]) {
      const refused = await redeem({ token, authorization_details: payment({ precondition: PRECONDITION }), current_versions: versions });
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
    }
  });
});
