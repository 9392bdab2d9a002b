/** Set-up shared by the end-to-end tests of the approval gate (test/gate-flow-*.test.ts): a server, a customer and an agent. */
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './harness.ts';
import { payment } from './payment.ts';

/** Registers, in the calling `describe`, a fresh server per test with customer_1 and a support agent; read them through the returned getters. */
export function useGate(storeKind: 'memory' | 'redis') {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  async function approved(details = payment()) {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'Order 1042' });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { ...asked, token: polled.token };
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
    approved,
  };
}
