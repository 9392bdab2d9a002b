import { createAgentClient } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

/**
 * A request the console made (a test request: decidable, never redeemable) says so wherever it is
 * shown: on the phone, and in the operator's list of pending requests and view of one request, so
 * that nobody mistakes a test for a real action or a real action for a test.
 */
describe("the operator's views mark the console's test requests", () => {
  let harness: Harness;
  let testId: string;
  let realId: string;

  beforeAll(async () => {
    harness = await createHarness();
    await harness.enrollUser('flag_target');
    const asked = await harness.admin('POST', '/test-requests', { login_hint: 'flag_target', sample: 'deletion' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    testId = asked.body.auth_req_id;
    const credentials = await harness.createClient('Real agent');
    const agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    realId = (await agent.requestApproval({ login_hint: 'flag_target', authorization_details: payment() })).auth_req_id;
  });
  afterAll(() => harness?.close());

  it('lists the pending test request with test: true and the real one with test: false', async () => {
    const { body } = await harness.admin('GET', '/requests?state=pending');
    const flags = Object.fromEntries((body.requests as { auth_req_id: string; test: boolean }[]).map((request) => [request.auth_req_id, request.test]));
    expect(flags).toEqual({ [testId]: true, [realId]: false });
  });

  it("says so in the display of the operator's view of one request", async () => {
    expect((await harness.admin('GET', `/requests/${testId}`)).body.display.test).toBe(true);
    expect((await harness.admin('GET', `/requests/${realId}`)).body.display.test).toBe(false);
  });
});
