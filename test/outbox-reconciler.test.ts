import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deadlineMember } from '../server/src/requests/index.ts';
import { keys } from '../server/src/store/index.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from './support/notification-receiver.ts';
import { loseRepliesOf, PAST_THE_MARK_SECONDS } from './support/lost-replies.ts';
import { payment } from './support/payment.ts';

/**
 * What follows a transition survives the instance that made it (docs/reliability.md): two
 * instances of one deployment; instance A's swap applies in Redis and then A never hears back (the
 * reply is lost, as when Redis pauses past the command timeout or A is killed), so none of the
 * swap's consequences run on A. Instance B's reconciler delivers them from the outbox entry the
 * swap wrote with itself: exactly once into the audit chain, however often it is delivered.
 */

describe.each(['redis', 'cluster'] as const)('the outbox on %s, across two instances', (storeKind) => {
  let a: Harness;
  let b: Harness;
  let receiver: NotificationReceiver;
  let customer: EnrolledUser;
  let pollAgent: AgentClient;
  let basic: string;

  beforeEach(async () => {
    receiver = await startNotificationReceiver();
    a = await createHarness({ store: storeKind });
    b = await a.instance();
    customer = await b.enrollUser('customer_1');
    const credentials = await b.createClient('Refund agent');
    basic = `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`;
    pollAgent = createAgentClient({ issuer: a.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: a.fetch });
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close(), receiver.close()]);
  });

  async function auditTypes(authReqId: string): Promise<string[]> {
    return (await b.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events.map((event: { type: string }) => event.type);
  }

  it('a redemption answered 503 but applied is audited once and gets its outcome deadline, from the other instance', async () => {
    const asked = await pollAgent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await pollAgent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);

    loseRepliesOf(a.store, 'redeem');
    const lost = await a.call('POST', '/redeem', {
      body: { token: polled.token.access_token, authorization_details: payment() },
      headers: { authorization: basic },
    });
    // The executor hears "try again", not "redeemed": it must not act on an unknown outcome.
    expect([lost.status, lost.body.error]).toEqual([503, 'temporarily_unavailable']);
    await a.deps.background.drain();
    // A's consequences never ran: no audit event, no outcome deadline yet.
    expect(await auditTypes(asked.auth_req_id)).not.toContain('redeemed');
    expect(await b.store.sortedRangeByScore(keys.outboxDue(), Number.MAX_SAFE_INTEGER, 1000)).toEqual([expect.stringContaining(asked.auth_req_id)]);

    // Before the mark is due, the reconciler leaves it (A may still be delivering).
    await b.deps.sweeper.sweep();
    expect(await auditTypes(asked.auth_req_id)).not.toContain('redeemed');
    b.clock.advance(PAST_THE_MARK_SECONDS);
    await b.deps.sweeper.sweep();
    await b.deps.background.drain();

    const types = await auditTypes(asked.auth_req_id);
    expect(types.filter((type) => type === 'redeemed')).toHaveLength(1);
    const outcomeDue = await b.store.sortedRangeByScore(keys.outcomeDeadlines(), Number.MAX_SAFE_INTEGER, 1000);
    expect(outcomeDue).toContain(deadlineMember({ tenant: 'default', auth_req_id: asked.auth_req_id }));
    expect(await b.store.sortedRangeByScore(keys.outboxDue(), Number.MAX_SAFE_INTEGER, 1000)).toEqual([]);
    const record = (await b.store.hashGet(keys.request('default', asked.auth_req_id)))!;
    expect(Object.keys(record).filter((field) => field.startsWith('ob:'))).toEqual([]);

    // The executor's retry reads the redemption; delivering the entry again changes nothing.
    const retry = await pollAgent.redeem(polled.token.access_token, payment()).catch((error: unknown) => error);
    expect((retry as { code?: string }).code).toBe('already_redeemed');
    await Promise.all([a.deps.outbox.drain({ tenant: 'default', auth_req_id: asked.auth_req_id }), b.deps.outbox.drain({ tenant: 'default', auth_req_id: asked.auth_req_id })]);
    expect((await auditTypes(asked.auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
    expect((await b.deps.audit.verify('default')).ok).toBe(true);
  });

  it('an entry left behind is delivered into the audit chain exactly once when both instances reconcile at once', async () => {
    const asked = await pollAgent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    loseRepliesOf(a.store, 'approve');
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(503);
    await a.deps.background.drain();
    expect(await auditTypes(asked.auth_req_id)).not.toContain('approved');

    a.clock.advance(PAST_THE_MARK_SECONDS);
    // Both instances find the due mark at the same moment (no lease between these two calls).
    await Promise.all([a.deps.outbox.reconcile(), b.deps.outbox.reconcile(), b.deps.outbox.drain({ tenant: 'default', auth_req_id: asked.auth_req_id })]);
    await Promise.all([a.deps.background.drain(), b.deps.background.drain()]);

    const types = await auditTypes(asked.auth_req_id);
    expect(types.filter((type) => type === 'approved')).toHaveLength(1);
    // The approval's other consequences: its deadline moved to the approval's, the token is there to take.
    const polled = await pollAgent.pollToken(asked.auth_req_id);
    expect(polled.status).toBe('approved');
    expect((await b.deps.audit.verify('default')).ok).toBe(true);
  });

  it('a ping client whose approval was made just before its instance died is pinged', async () => {
    const { body } = await b.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
    const pingAgent = createAgentClient({ issuer: b.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: b.fetch });
    const asked = await pingAgent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: 'cnt_0123456789abcdef0123456789abcdef' });
    loseRepliesOf(a.store, 'approve');
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(503);

    b.clock.advance(PAST_THE_MARK_SECONDS);
    await b.deps.sweeper.sweep();
    await b.drain();
    expect(receiver.received.map((ping) => ping.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
    expect((await auditTypes(asked.auth_req_id)).filter((type) => type === 'notified')).toHaveLength(1);
  });
});
