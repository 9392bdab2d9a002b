/** Set-up shared by the end-to-end tests of the approval gate (test/gate-flow-*.test.ts): a server, a customer and an agent. */
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './harness.ts';
import { payment } from './payment.ts';

/** Registers, in the calling `describe`, a fresh server per test with customer_1 and a support agent; read them through the returned object. */
export function useGate(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    agent: AgentClient;
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: storeKind });
    state.customer = await state.harness.enrollUser('customer_1');
    const credentials = await state.harness.createClient('Support agent');
    state.agent = createAgentClient({ issuer: state.harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: state.harness.fetch });
  });
  afterEach(() => state.harness.close());

  async function approved(details = payment()) {
    const asked = await state.agent.requestApproval({ login_hint: state.customer.sub, authorization_details: details, binding_message: 'Order 1042' });
    expect((await state.harness.decide(state.customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await state.agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { ...asked, token: polled.token };
  }

  return Object.assign(state, { approved });
}
