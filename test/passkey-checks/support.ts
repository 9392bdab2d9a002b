/**
 * Set-up shared by the tests of passkey checks in the right order (docs/security.md): a passkey's signature is verified before
 * its counter is compared, and a credential id is registered once in a tenant (WebAuthn Level 3
 * §7.1 and §7.2).
 */
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import type { AuditEvent } from '../../server/src/audit/index.ts';
import { keys } from '../../server/src/store/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';

export const TENANT = 'default';

/** Registers, in the calling `describe`, a fresh server per test with a support agent and every audit event recorded in `audit`; read them through the returned object. */
export function usePasskeyChecks(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    agent: AgentClient;
    audit: Omit<AuditEvent, 'at'>[];
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: storeKind });
    const credentials = await state.harness.createClient('Support agent');
    state.agent = createAgentClient({ issuer: state.harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: state.harness.fetch });
    state.audit = [];
    const record = state.harness.deps.audit.record.bind(state.harness.deps.audit);
    state.harness.deps.audit.record = async (event) => {
      state.audit.push(event);
      return record(event);
    };
  });
  afterEach(() => state.harness.close());

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => state.harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: state.harness.issuer } });
  const ask = async (user: EnrolledUser, transactionId: string) => (await state.agent.requestApproval({ login_hint: user.sub, authorization_details: payment({ transaction_id: transactionId }) })).auth_req_id;
  const stateOf = async (authReqId: string) => (await state.agent.getRequest(authReqId)).state;
  const deviceIds = (sub: string) => state.harness.store.setMembers(keys.userDevices(TENANT, sub));
  /** The device record exactly as stored (JSON), for a user with one device. */
  async function storedDevice(sub: string): Promise<string | null> {
    const [id] = await deviceIds(sub);
    return id === undefined ? null : state.harness.store.get(keys.device(TENANT, sub, id));
  }
  const reasons = () => state.audit.filter((event) => event.type === 'refused').map((event) => event.reason);

  /** Enrolls alice and approves two requests, so her stored counter is 2. */
  async function aliceAtTwo(): Promise<EnrolledUser> {
    const alice = await state.harness.enrollUser('alice');
    for (const transactionId of ['txn_1', 'txn_2']) expect((await state.harness.decide(alice, await ask(alice, transactionId), 'approve')).status).toBe(200);
    expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(2);
    return alice;
  }

  /** An enrollment code for `sub` (created first unless it exists) and its registration options. */
  async function enrollmentFor(sub: string, create = true) {
    if (create) await state.harness.admin('POST', '/users', { sub, display_name: sub });
    const code = (await state.harness.admin('POST', `/users/${sub}/enrollments`)).body.enrollment_code as string;
    const options = await state.harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: state.harness.issuer } });
    expect(options.status).toBe(200);
    return { code, options: options.body };
  }
  const verify = (code: string, response: unknown) => state.harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: 'Second phone' }, headers: { origin: state.harness.issuer } });
  /** A client that claims `credentialId` for a passkey of its own (its own key). */
  const claiming = (credentialId: string) => createSoftAuthenticator({ origin: state.harness.issuer, rpId: 'localhost', credentialId });

  return Object.assign(state, { device, ask, stateOf, deviceIds, storedDevice, reasons, aliceAtTwo, enrollmentFor, verify, claiming });
}
