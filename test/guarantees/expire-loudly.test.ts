import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { topicFor, type PushSender, type PushSendOptions } from '../../server/src/push/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { payment } from '../support/payment.ts';

/**
 * Expire loudly (docs/audit.md): a request that expires tells the agent (a ping, for a ping client)
 * and the person (a Web Push `request_expired` to their devices), and is audited — found by the
 * sweeper, with no poll and nobody looking, and announced once.
 */

const NOTIFICATION_TOKEN = 'cnt_expire_loudly_0123456789abcdef';

/** A push sender that records what it was asked to send instead of sending it. */
function recordingSender() {
  const sent: { endpoint: string; payload: Record<string, unknown>; options: PushSendOptions }[] = [];
  const sender: PushSender = {
    send: async (subscription, payload, options) => {
      sent.push({ endpoint: subscription.endpoint, payload: JSON.parse(payload), options });
      return { status: 'sent', statusCode: 201 };
    },
  };
  return { sender, sent };
}

describe.each(['memory', 'redis'] as const)('expire loudly (%s store)', (storeKind) => {
  let harness: Harness;
  let receiver: NotificationReceiver;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let pushes: ReturnType<typeof recordingSender>['sent'];

  beforeEach(async () => {
    const { sender, sent } = recordingSender();
    pushes = sent;
    harness = await createHarness({ store: storeKind, pushSender: sender });
    receiver = await startNotificationReceiver();
    customer = await harness.enrollUser('customer_1');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const subscription = { endpoint: 'https://push.example.net/send/phone-1', expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
    const saved = await harness.call('PUT', '/api/device/push-subscription', { body: subscription, headers: { cookie: customer.cookie, origin: harness.issuer } });
    expect(saved.status).toBe(204);
    const { body } = await harness.admin('POST', '/clients', { name: 'Refund agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
    agent = createAgentClient({ issuer: harness.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: harness.fetch });
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  async function auditOf(authReqId: string) {
    return (await harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events as { type: string; channel: string; detail?: Record<string, unknown> }[];
  }

  it('tells the agent by ping and the person by push when a pending request expires, and audits both, once', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN, requested_expiry: 30 });
    await harness.deps.background.drain();
    expect(pushes.map((push) => push.payload.kind)).toEqual(['approval_request']);

    harness.clock.advance(30);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    await harness.deps.background.drain();

    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.json).toEqual({ auth_req_id: asked.auth_req_id });
    expect(receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);

    expect(pushes).toHaveLength(2);
    const notice = pushes[1]!;
    expect(notice.endpoint).toBe('https://push.example.net/send/phone-1');
    expect(notice.payload).toEqual({ kind: 'request_expired', auth_req_id: asked.auth_req_id, summary: 'Expired, nothing was done. Refund agent: EUR 490.00 to ACME Ltd' });
    // The same Topic as the request's push: a phone that was offline gets the notice, not a request it can no longer approve.
    expect(notice.options).toEqual({ ttlSeconds: 600, urgency: 'normal', topic: topicFor(asked.auth_req_id) });
    expect(pushes[0]!.options.topic).toBe(topicFor(asked.auth_req_id));

    const events = await auditOf(asked.auth_req_id);
    expect(events.map((event) => event.type).slice(0, 3)).toEqual(['proposed', 'pushed', 'expired']);
    expect(events[2]).toMatchObject({ type: 'expired', channel: 'system', detail: { from: 'pending' } });
    // The ping and the push run side by side in the background: either may be audited first.
    const announced = events.slice(3).sort((a, b) => a.type.localeCompare(b.type));
    expect(announced).toMatchObject([
      { type: 'notified', channel: 'notification', detail: { mode: 'ping', attempts: 1, status: 204 } },
      { type: 'pushed', channel: 'push', detail: { kind: 'request_expired', sent: 1, removed: 0, failed: 0 } },
    ]);
    expect(announced).toHaveLength(2);

    // Another sweep, a poll and the device looking again announce nothing more.
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    await harness.deps.background.drain();
    expect(receiver.received).toHaveLength(1);
    expect(pushes).toHaveLength(2);
    expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'expired')).toHaveLength(1);
  });

  it('expires loudly when a poll finds the deadline passed before the sweeper does', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN, requested_expiry: 30 });
    harness.clock.advance(31);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    await harness.deps.background.drain();
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    await harness.deps.background.drain();
    expect(pushes.filter((push) => push.payload.kind === 'request_expired')).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
  });

  it('tells the person when an approval runs out unredeemed, and does not ping the agent again', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await harness.deps.background.drain();
    expect(receiver.received).toHaveLength(1);

    harness.clock.advance(600);
    expect((await agent.getRequest(asked.auth_req_id)).state).toBe('expired');
    await harness.deps.background.drain();
    expect(receiver.received).toHaveLength(1);
    expect(pushes.at(-1)!.payload).toEqual({ kind: 'request_expired', auth_req_id: asked.auth_req_id, summary: 'Approval expired unused, nothing was done. Refund agent: EUR 490.00 to ACME Ltd' });
    const events = await auditOf(asked.auth_req_id);
    expect(events.slice(-2)).toMatchObject([
      { type: 'expired', detail: { from: 'approved' } },
      { type: 'pushed', detail: { kind: 'request_expired', sent: 1 } },
    ]);
  });
});
