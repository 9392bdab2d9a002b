/** Set-up shared by the per-tenant policy tests: users and agents enrolled in a tenant through the real admin and device APIs, and a policy with a lowered threshold. */
import type { AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { harnessClient } from '../support/harness-client.ts';
import { payment } from '../support/payment.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';

/** EUR 500.00: below the default policy's EUR `elevated` threshold (1 000.00), above the lowered one (400.00). */
export const EUR_500 = 50_000;
export const LOWERED = 40_000;

/** A user of `tenant` with an enrolled software passkey, through the real admin and device APIs. */
export async function enrollIn(harness: Harness, tenant: string, sub: string): Promise<EnrolledUser> {
  expect((await harness.admin('POST', '/users', { sub, tenant })).status).toBe(201);
  const enrollment = await harness.admin('POST', `/users/${sub}/enrollments`, { tenant });
  const authenticator = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
  const headers = { origin: harness.issuer };
  const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: enrollment.body.enrollment_code }, headers });
  const response = await authenticator.register(options.body);
  const verify = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: enrollment.body.enrollment_code, response, device_name: 'Phone' }, headers });
  expect(verify.status).toBe(200);
  return { sub, authenticator, cookie: (verify.headers.get('set-cookie') ?? '').split(';')[0]! };
}

/** An agent registered in `tenant`. */
export async function agentIn(harness: Harness, tenant: string): Promise<AgentClient> {
  const created = await harness.admin('POST', '/clients', { name: `Agent of ${tenant}`, tenant });
  expect(created.status).toBe(201);
  return harnessClient(harness, created.body.client_id, created.body.client_secret);
}

/** The default policy with the EUR `elevated` threshold of payments at `fromMinor`. */
export function withEurElevatedAt(policy: any, fromMinor: number): any {
  const copy = structuredClone(policy);
  copy.types.payment.amount_tiers.EUR[0].from_minor = fromMinor;
  return copy;
}

/** Registers, in the calling `describe`, a fresh server per test with a user and an agent in each of the tenants acme and globex (`other`); read them through the returned object. */
export function useTenants(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    acme: { user: EnrolledUser; agent: AgentClient };
    other: { user: EnrolledUser; agent: AgentClient };
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: storeKind });
    state.acme = { user: await enrollIn(state.harness, 'acme', 'ana'), agent: await agentIn(state.harness, 'acme') };
    state.other = { user: await enrollIn(state.harness, 'globex', 'bo'), agent: await agentIn(state.harness, 'globex') };
  });
  afterEach(() => state.harness.close());

  const policyOf = (tenant: string) => state.harness.admin('GET', `/tenants/${tenant}/policy`);
  const put = (tenant: string, body: unknown, headers: Record<string, string> = {}) => state.harness.call('PUT', `/api/admin/tenants/${tenant}/policy`, { body, headers: { authorization: `Bearer ${state.harness.adminToken}`, ...headers } });
  const stored = async (tenant: string, authReqId: string) => (await state.harness.admin('GET', `/requests/${authReqId}?tenant=${tenant}`)).body.request;
  const policyEvents = async (tenant: string) => (await state.harness.admin('GET', `/audit?tenant=${tenant}&type=policy_changed`)).body.events;
  const ask = (party: { agent: AgentClient; user: EnrolledUser }, transactionId: string) => party.agent.requestApproval({ login_hint: party.user.sub, authorization_details: payment({ transaction_id: transactionId, amount_minor: EUR_500 }) });

  return Object.assign(state, { policyOf, put, stored, policyEvents, ask });
}
