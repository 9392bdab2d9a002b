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

/** Registers, in the calling `describe`, a fresh Redis-backed server per test with customer_1 and a support agent; read them through the returned object. */
export function useDesignGuarantees() {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    agent: AgentClient;
    clientId: string;
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: 'redis' });
    state.customer = await state.harness.enrollUser('customer_1');
    const credentials = await state.harness.createClient('Support agent');
    state.clientId = credentials.client_id;
    state.agent = createAgentClient({ issuer: state.harness.issuer, clientId: state.clientId, clientSecret: credentials.client_secret, fetch: state.harness.fetch });
  });
  afterEach(() => state.harness.close());

  const ask = (details = payment()) => state.agent.requestApproval({ login_hint: state.customer.sub, authorization_details: details, binding_message: 'Order 1042' });
  const auditTypes = async (id: string) => (await state.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events.map((event: { type: string }) => event.type);
  const refusal = errorOf;
  async function approvedToken(details = payment()) {
    const asked = await ask(details);
    // The person opens the request once its push has reached them: the push (background work) goes first.
    await state.harness.drain();
    expect((await state.harness.decide(state.customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await state.agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    return { id: asked.auth_req_id, token: polled.token };
  }

  return Object.assign(state, { ask, auditTypes, refusal, approvedToken });
}
