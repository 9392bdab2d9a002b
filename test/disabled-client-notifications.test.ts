import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from './support/notification-receiver.ts';
import { payment } from './support/payment.ts';

/**
 * A client an operator disabled collects nothing (docs/operator-tools.md): a request it made before
 * may still be decided, but no ping tells it to come for the token and no push carries one. The
 * notification is given up for good (`notify_failed` `client_disabled`), and a ping client enabled
 * again polls its token as before.
 */
describe('notifications to a disabled client', () => {
  const NOTIFICATION_TOKEN = 'cnt_0b9e4c1f6a2d4e8c9f7a3b5d1e6c8a2f';
  let harness: Harness;
  let receiver: NotificationReceiver;
  let customer: EnrolledUser;

  beforeAll(async () => {
    harness = await createHarness({ store: 'redis' });
    receiver = await startNotificationReceiver();
    customer = await harness.enrollUser('customer_disabled_client');
  });
  afterAll(async () => {
    await harness?.close();
    await receiver?.close();
  });

  async function agentFor(mode: 'ping' | 'push'): Promise<{ agent: AgentClient; clientId: string }> {
    const { status, body } = await harness.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: receiver.url });
    expect(status).toBe(201);
    return { agent: createAgentClient({ issuer: harness.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: harness.fetch }), clientId: body.client_id };
  }

  /** Asks, disables the client, and lets the customer approve while it is disabled. */
  async function approvedWhileDisabled(mode: 'ping' | 'push') {
    const { agent, clientId } = await agentFor(mode);
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN });
    expect((await harness.admin('POST', `/clients/${clientId}/disable`)).status).toBe(200);
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await harness.drain();
    const events = (await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`)).body.events as { type: string; reason?: string }[];
    return { agent, clientId, authReqId: asked.auth_req_id, events };
  }

  it('sends a disabled ping client no ping, audits why once, and lets it poll the token once enabled again', async () => {
    const before = receiver.received.length;
    const { agent, clientId, authReqId, events } = await approvedWhileDisabled('ping');
    expect(receiver.received.length).toBe(before);
    expect(events.filter((event) => event.type === 'notify_failed')).toMatchObject([{ reason: 'client_disabled' }]);
    expect(events.map((event) => event.type)).not.toContain('notified');

    expect((await harness.admin('POST', `/clients/${clientId}/enable`)).status).toBe(200);
    expect((await agent.pollToken(authReqId)).status).toBe('approved');
  });

  it('issues a disabled push client no token at all: nothing is sent that could be redeemed', async () => {
    const before = receiver.received.length;
    const { authReqId, events } = await approvedWhileDisabled('push');
    expect(receiver.received.length).toBe(before);
    expect(events.filter((event) => event.type === 'notify_failed')).toMatchObject([{ reason: 'client_disabled' }]);
    expect(events.map((event) => event.type)).not.toContain('token_issued');
    const stored = await harness.admin('GET', `/requests/${authReqId}`);
    expect(stored.body.request).toMatchObject({ state: 'approved' });
    expect(stored.body.request.token_jti).toBeUndefined();
  });
});
