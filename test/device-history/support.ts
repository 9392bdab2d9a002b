/**
 * Set-up shared by the tests of the approver's own account on the device API (docs/design.md "Approver PWA"): the history of past
 * decisions and their outcomes (`GET /api/device/history`), the user's devices (list, rename,
 * remove) and a one-time link that adds another device to the same user
 * (`POST /api/device/enrollments`).
 */
import type { DeviceEnrollmentLink, DeviceSummary, HistoryEntry } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { bcAuthorize, device, pay, testPolicy, watchAudit, type SeenEvent } from '../guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';

type Client = { client_id: string; client_secret: string };

/** Registers, in the calling `describe`, a fresh server per test with customer_1, a client and its agent, and the audit watched; read them through the returned object. */
export function useDeviceAccount(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    client: Client;
    agent: AgentClient;
    audit: SeenEvent[];
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: storeKind, env: { POLICY_FILE: testPolicy() } });
    state.customer = await state.harness.enrollUser('customer_1');
    state.client = await state.harness.createClient('Refund agent');
    state.agent = createAgentClient({ issuer: state.harness.issuer, clientId: state.client.client_id, clientSecret: state.client.client_secret, fetch: state.harness.fetch });
    state.audit = watchAudit(state.harness);
  });
  afterEach(() => state.harness.close());

  const ask = async (transactionId: string, amount = 49_000, extra: { requested_expiry?: number; as?: Client } = {}) => {
    const asked = await bcAuthorize(state.harness, extra.as ?? state.client, { login_hint: state.customer.sub, details: pay(transactionId, amount), ...(extra.requested_expiry ? { requested_expiry: extra.requested_expiry } : {}) });
    if (asked.status !== 200) throw new Error(`not asked: ${JSON.stringify(asked.body)}`);
    return asked.body as { auth_req_id: string; binding_code?: string };
  };
  const history = async (user: EnrolledUser = state.customer) => {
    const listed = await device(state.harness, user, 'GET', '/history');
    expect(listed.status).toBe(200);
    return listed.body.entries as HistoryEntry[];
  };
  const devices = async (user: EnrolledUser) => (await device(state.harness, user, 'GET', '/devices')).body.devices as DeviceSummary[];
  /** Each step one second apart, so "newest first" has one answer. */
  const later = () => state.harness.clock.advance(1);

  /** Asks for an add-device link from `from`'s session, confirming with `from`'s passkey. */
  async function createLink(from: EnrolledUser) {
    const options = await device(state.harness, from, 'POST', '/enrollments/options');
    expect(options.status).toBe(200);
    return device(state.harness, from, 'POST', '/enrollments', { response: await from.authenticator.authenticate(options.body) });
  }

  /** Makes an add-device link from `from`'s session and enrolls a new software passkey with it. */
  async function addDevice(from: EnrolledUser, name: string): Promise<{ user: EnrolledUser; link: DeviceEnrollmentLink; code: string }> {
    const created = await createLink(from);
    expect(created.status).toBe(201);
    const link = created.body as DeviceEnrollmentLink;
    const code = link.enrollment_url.split('/#/enroll/')[1]!;
    const authenticator = createSoftAuthenticator({ origin: state.harness.issuer, rpId: new URL(state.harness.issuer).hostname });
    const options = await state.harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: state.harness.issuer } });
    const verified = await state.harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await authenticator.register(options.body), device_name: name }, headers: { origin: state.harness.issuer } });
    expect(verified.status).toBe(200);
    return { user: { sub: from.sub, authenticator, cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0]! }, link, code };
  }

  return Object.assign(state, { ask, history, devices, later, createLink, addDevice });
}
