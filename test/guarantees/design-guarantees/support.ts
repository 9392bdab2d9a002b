/**
 * Set-up shared by the named test of each guarantee of docs/design.md ("The nine guarantees"), each
 * against a real server on the test Redis with a software passkey. Deeper and wider checks of
 * each live elsewhere (see docs/guarantees.md); these are the ones a reader looks for first.
 */
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { payment } from '../../support/payment.ts';
import { errorOf } from '../../support/refusal.ts';

/** Registers, in the calling `describe`, a fresh Redis-backed server per test with customer_1 and a support agent; read them through the returned getters. */
export function useDesignGuarantees() {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let clientId: string;

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Support agent');
    clientId = credentials.client_id;
    agent = createAgentClient({ issuer: harness.issuer, clientId, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  const ask = (details = payment()) => agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'Order 1042' });
  const auditTypes = async (id: string) => (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events.map((event: { type: string }) => event.type);
  const refusal = errorOf;
  async function approvedToken(details = payment()) {
    const asked = await ask(details);
    // The person opens the request once its push has reached them: the push (background work) goes first.
    await harness.drain();
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    return { id: asked.auth_req_id, token: polled.token };
  }

  return {
    get harness() {
      return harness;
    },
    get customer() {
      return customer;
    },
    get agent() {
      return agent;
    },
    get clientId() {
      return clientId;
    },
    ask,
    auditTypes,
    refusal,
    approvedToken,
  };
}
