import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../server/src/store/index.ts';
import { answer } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { loseRepliesOf, PAST_THE_MARK_SECONDS } from './support/lost-replies.ts';
import { payment } from './support/payment.ts';

/**
 * Entries delivered late (docs/reliability.md "What follows a transition"): a swap applied, its
 * reply was lost, and the request moved on before the reconciler delivered its entry. What the
 * audit trail says of the request must still be what happened, in the order it happened, once.
 */

describe('outbox entries delivered after the request moved on', () => {
  let h: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;

  beforeEach(async () => {
    h = await createHarness();
    customer = await h.enrollUser('customer_1');
    const credentials = await h.createClient('Refund agent');
    agent = createAgentClient({ issuer: h.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: h.fetch });
  });
  afterEach(async () => {
    await h.close();
  });

  async function auditOf(authReqId: string): Promise<{ type: string; reason?: string }[]> {
    return (await h.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
  }

  it('an approval whose reply was lost is audited before the token and the redemption that followed it', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    loseRepliesOf(h.store, 'approve');
    expect((await h.decide(customer, asked.auth_req_id, 'approve')).status).toBe(503);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    await agent.redeem(polled.token.access_token, payment());

    h.clock.advance(PAST_THE_MARK_SECONDS);
    await h.deps.sweeper.sweep();
    await h.drain();
    const lifecycle = ['proposed', 'approved', 'token_issued', 'redeemed'];
    expect((await auditOf(asked.auth_req_id)).map((event) => event.type).filter((type) => lifecycle.includes(type))).toEqual(lifecycle);
  });

  it('a wrong number-matching pick whose denial reply was lost is audited as refused once', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ amount_minor: 150_000 }) });
    const view = await h.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.binding_code)!;
    loseRepliesOf(h.store, 'deny');
    expect((await answer(h, customer, asked.auth_req_id, { decision: 'approve', code: decoy })).status).toBe(503);
    expect((await h.store.hashGet(keys.request('default', asked.auth_req_id)))?.state).toBe('denied');

    h.clock.advance(PAST_THE_MARK_SECONDS);
    await h.deps.sweeper.sweep();
    await h.drain();
    const events = await auditOf(asked.auth_req_id);
    expect(events.filter((event) => event.type === 'refused' && event.reason === 'wrong_binding_code')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'denied')).toHaveLength(1);
  });
});
