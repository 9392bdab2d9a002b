/**
 * Set-up shared by the ping and push delivery tests (CIBA Core §10.2, §10.3, §12) against a real HTTP notification endpoint
 * on loopback, on both stores. Each retry is a job due after its backoff: the harness records the
 * wait and moves the clock instead of waiting; only the timeout case spends real time (one 200 ms
 * attempt).
 */
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { payment } from '../support/payment.ts';
import { answer } from '../guarantees/policy-support.ts';

/** The bearer the client hands over at /bc-authorize and expects back on every notification. */
export const NOTIFICATION_TOKEN = 'cnt_8f14e45fceea167a5a36dedd4bea2543';

/** at_hash as OpenID Connect Core §3.1.3.6 defines it for ES256: the left half of SHA-256, base64url. */
export function expectedAtHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
}

/** Registers, in the calling `describe`, a fresh server (200 ms notification timeout), a notification receiver and customer_1 per test; read them through the returned object. */
export function useNotifications(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    receiver: NotificationReceiver;
    customer: EnrolledUser;
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: storeKind, notifications: { timeoutMs: 200 } });
    state.receiver = await startNotificationReceiver();
    state.customer = await state.harness.enrollUser('customer_1');
  });
  afterEach(async () => {
    await state.harness.close();
    await state.receiver.close();
  });

  /** Registers a client in `mode` whose notification endpoint is `endpoint` (the receiver by default). */
  async function agentFor(mode: 'poll' | 'ping' | 'push', endpoint = state.receiver.url): Promise<AgentClient> {
    const { status, body } = await state.harness.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: endpoint });
    expect(status).toBe(201);
    return createAgentClient({ issuer: state.harness.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: state.harness.fetch });
  }

  async function ask(agent: AgentClient, extra: { requested_expiry?: number } = {}) {
    return agent.requestApproval({ login_hint: state.customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN, ...extra });
  }

  async function auditOf(authReqId: string): Promise<{ type: string; reason?: string; detail?: Record<string, unknown> }[]> {
    return (await state.harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
  }

  async function decided(authReqId: string, decision: 'approve' | 'deny') {
    expect((await state.harness.decide(state.customer, authReqId, decision)).status).toBe(200);
    // The notification, and its retries when the endpoint fails, due one after another.
    await state.harness.drain();
  }

  /**
   * Asks for EUR 1,500.00 (the shipped policy's `elevated` tier: number matching), and the customer
   * picks a code that is not the agent's: the request is denied at that first wrong pick.
   */
  async function pickedWrong(agent: AgentClient) {
    const asked = await agent.requestApproval({ login_hint: state.customer.sub, authorization_details: payment({ amount_minor: 150_000 }), client_notification_token: NOTIFICATION_TOKEN });
    expect(asked.binding_code).toMatch(/^[0-9]{2}$/);
    const view = await state.harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: state.customer.cookie } });
    const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.binding_code)!;
    expect((await answer(state.harness, state.customer, asked.auth_req_id, { decision: 'approve', code: decoy })).body.error).toBe('wrong_binding_code');
    await state.harness.drain();
    return asked;
  }

  return Object.assign(state, { agentFor, ask, auditOf, decided, pickedWrong });
}
