import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from './support/notification-receiver.ts';
import { payment } from './support/payment.ts';
import { answer } from './guarantees/policy-support.ts';
import { keys } from '../server/src/store/index.ts';
import { errorOf } from './support/refusal.ts';

/**
 * Ping and push delivery (CIBA Core §10.2, §10.3, §12) against a real HTTP notification endpoint
 * on loopback, on both stores. Each retry is a job due after its backoff: the harness records the
 * wait and moves the clock instead of waiting; only the timeout case spends real time (one 200 ms
 * attempt).
 */

/** The bearer the client hands over at /bc-authorize and expects back on every notification. */
const NOTIFICATION_TOKEN = 'cnt_8f14e45fceea167a5a36dedd4bea2543';

/** at_hash as OpenID Connect Core §3.1.3.6 defines it for ES256: the left half of SHA-256, base64url. */
function expectedAtHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
}

describe.each(['memory', 'redis'] as const)('ping and push notifications (%s store)', (storeKind) => {
  let harness: Harness;
  let receiver: NotificationReceiver;
  let customer: EnrolledUser;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind, notifications: { timeoutMs: 200 } });
    receiver = await startNotificationReceiver();
    customer = await harness.enrollUser('customer_1');
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  /** Registers a client in `mode` whose notification endpoint is `endpoint` (the receiver by default). */
  async function agentFor(mode: 'poll' | 'ping' | 'push', endpoint = receiver.url): Promise<AgentClient> {
    const { status, body } = await harness.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: endpoint });
    expect(status).toBe(201);
    return createAgentClient({ issuer: harness.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: harness.fetch });
  }

  async function ask(agent: AgentClient, extra: { requested_expiry?: number } = {}) {
    return agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN, ...extra });
  }

  async function auditOf(authReqId: string): Promise<{ type: string; reason?: string; detail?: Record<string, unknown> }[]> {
    return (await harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
  }

  async function decided(authReqId: string, decision: 'approve' | 'deny') {
    expect((await harness.decide(customer, authReqId, decision)).status).toBe(200);
    // The notification, and its retries when the endpoint fails, due one after another.
    await harness.drain();
  }

  /**
   * Asks for EUR 1,500.00 (the shipped policy's `elevated` tier: number matching), and the customer
   * picks a code that is not the agent's: the request is denied at that first wrong pick.
   */
  async function pickedWrong(agent: AgentClient) {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ amount_minor: 150_000 }), client_notification_token: NOTIFICATION_TOKEN });
    expect(asked.binding_code).toMatch(/^[0-9]{2}$/);
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.binding_code)!;
    expect((await answer(harness, customer, asked.auth_req_id, { decision: 'approve', code: decoy })).body.error).toBe('wrong_binding_code');
    await harness.drain();
    return asked;
  }

  describe('ping', () => {
    it('POSTs {auth_req_id} as JSON with the bearer token on approval; the token is then pollable', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await harness.deps.background.drain();
      expect(receiver.received).toEqual([]);

      await decided(asked.auth_req_id, 'approve');
      expect(receiver.received).toHaveLength(1);
      const [ping] = receiver.received;
      expect(ping!.method).toBe('POST');
      expect(ping!.path).toBe('/cb');
      expect(ping!.headers['content-type']).toBe('application/json');
      expect(ping!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      expect(ping!.text).toBe(JSON.stringify({ auth_req_id: asked.auth_req_id }));

      const polled = await agent.pollToken(asked.auth_req_id);
      expect(polled.status).toBe('approved');
      const notified = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'notified');
      expect(notified).toMatchObject([{ detail: { mode: 'ping', attempts: 1, status: 204 } }]);
    });

    it('sends a ping delivered twice with byte-identical body and headers, so the client can de-duplicate by auth_req_id', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      expect(receiver.received).toHaveLength(1);
      // The state an instance leaves when it is killed after the POST and before it marks the request
      // notified: the job is still pending, and whoever takes it over pings again (the queue is at least once).
      expect(await harness.deps.store.hashDelete(keys.request('default', asked.auth_req_id), 'notified_at')).toBe(true);
      harness.clock.advance(3);
      await harness.deps.jobs.enqueue({ kind: 'client_notification', tenant: 'default', auth_req_id: asked.auth_req_id });
      await harness.drain();
      expect(receiver.received).toHaveLength(2);
      const [first, second] = receiver.received;
      expect(second!.text).toBe(first!.text);
      expect(second!.text).toBe(JSON.stringify({ auth_req_id: asked.auth_req_id }));
      expect(second!.headers).toStrictEqual(first!.headers);
      expect([second!.method, second!.path]).toStrictEqual([first!.method, first!.path]);
    });

    it('keeps the client_notification_token out of the audit trail and the admin view', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      const audit = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
      const view = await harness.admin('GET', `/requests/${asked.auth_req_id}`);
      expect(view.body.request).toMatchObject({ token_delivery_mode: 'ping', state: 'approved' });
      expect(JSON.stringify(audit.body)).not.toContain(NOTIFICATION_TOKEN);
      expect(JSON.stringify(view.body)).not.toContain(NOTIFICATION_TOKEN);
    });

    it('pings on denial; the poll then answers access_denied', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'deny');
      expect(receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    });

    it('pings when a wrong number-matching pick denies the request; the poll then answers access_denied', async () => {
      const agent = await agentFor('ping');
      const asked = await pickedWrong(agent);
      expect(receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toEqual([]);
    });

    it('pings on expiry found by the sweeper, with nobody polling; a late approval then sends nothing', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent, { requested_expiry: 60 });
      const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });

      harness.clock.advance(59);
      expect(await harness.deps.sweeper.sweep()).toBe(0);
      harness.clock.advance(1);
      expect(await harness.deps.sweeper.sweep()).toBe(1);
      await harness.deps.background.drain();
      expect(receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);

      // Every door agrees: the token endpoint and the device's decision see the expiry.
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
      const late = await customer.authenticator.authenticate(view.body.options.approve);
      const decision = await harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'approve', response: late }, headers: { cookie: customer.cookie, origin: harness.issuer } });
      expect([decision.status, decision.body.error]).toEqual([400, 'expired_token']);
      expect(await harness.deps.sweeper.sweep()).toBe(0);
      await harness.deps.background.drain();
      expect(receiver.received).toHaveLength(1);
      const types = (await auditOf(asked.auth_req_id)).map((event) => event.type);
      expect(types.filter((type) => type === 'expired' || type === 'notified')).toEqual(['expired', 'notified']);
    });

    it('retries a failing endpoint with backoff: 500, then a timeout, then delivered on the 3rd attempt', async () => {
      receiver.script(500, 'hang');
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');

      expect(receiver.received).toHaveLength(3);
      for (const attempt of receiver.received) {
        expect(attempt.text).toBe(JSON.stringify({ auth_req_id: asked.auth_req_id }));
        expect(attempt.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      }
      expect(harness.sleeps).toEqual([1000, 2000]);
      const events = await auditOf(asked.auth_req_id);
      expect(events.filter((event) => event.type === 'notified')).toMatchObject([{ detail: { mode: 'ping', attempts: 3, status: 204 } }]);
      expect(events.filter((event) => event.type === 'notify_failed')).toEqual([]);
      expect((await agent.pollToken(asked.auth_req_id)).status).toBe('approved');
    });

    it('gives up after 5 attempts on an endpoint that refuses connections, and the token stays pollable', async () => {
      const closed = `http://127.0.0.1:${await freePort()}/cb`;
      const agent = await agentFor('ping', closed);
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');

      expect(harness.sleeps).toEqual([1000, 2000, 4000, 8000]);
      const failed = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'notify_failed');
      expect(failed).toMatchObject([{ reason: 'endpoint_unreachable', detail: { mode: 'ping', attempts: 5 } }]);
      const polled = await agent.pollToken(asked.auth_req_id);
      if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
      expect((await agent.redeem(polled.token.access_token, payment())).status).toBe('redeemed');
    });

    it('does not retry an endpoint that refuses the notification with a 4xx', async () => {
      receiver.script(401);
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      expect(receiver.received).toHaveLength(1);
      expect(harness.sleeps).toEqual([]);
      const failed = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'notify_failed');
      expect(failed).toMatchObject([{ reason: 'endpoint_error', detail: { attempts: 1, status: 401 } }]);
    });

    it('refuses a ping client without client_notification_token at /bc-authorize, storing nothing', async () => {
      const agent = await agentFor('ping');
      const error = await errorOf(agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() }));
      expect([error.status, error.code]).toEqual([400, 'invalid_request']);
      expect(await harness.deps.sweeper.sweep()).toBe(0);
      harness.clock.advance(600);
      expect(await harness.deps.sweeper.sweep()).toBe(0);
    });
  });

  describe('push', () => {
    it('delivers the token response to the endpoint; its id_token verifies and binds the access token and the request', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');

      expect(receiver.received).toHaveLength(1);
      const [push] = receiver.received;
      expect(push!.headers['content-type']).toBe('application/json');
      expect(push!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      const body = push!.json as Record<string, any>;
      expect(Object.keys(body).sort()).toEqual(['access_token', 'auth_req_id', 'authorization_details', 'expires_in', 'id_token', 'token_type']);
      expect(body).toMatchObject({ auth_req_id: asked.auth_req_id, token_type: 'Bearer', expires_in: 600, authorization_details: payment() });

      const jwks = createLocalJWKSet((await harness.call('GET', '/jwks.json')).body);
      const { payload, protectedHeader } = await jwtVerify(body.id_token, jwks, { issuer: harness.issuer, audience: agent.clientId, currentDate: new Date(harness.clock.now()) });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload.sub).toBe(customer.sub);
      expect(payload.at_hash).toBe(expectedAtHash(body.access_token));
      expect(payload['urn:openid:params:jwt:claim:auth_req_id']).toBe(asked.auth_req_id);

      expect((await agent.redeem(body.access_token, payment())).status).toBe('redeemed');
      const types = (await auditOf(asked.auth_req_id)).map((event) => event.type);
      expect(types.filter((type) => type === 'token_issued' || type === 'notified')).toEqual(['token_issued', 'notified']);
      expect(JSON.stringify(await auditOf(asked.auth_req_id))).not.toContain(body.access_token);
    });

    it('refuses the token endpoint to a push client with unauthorized_client, before and after the decision', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent);
      const before = await errorOf(agent.pollToken(asked.auth_req_id));
      expect([before.status, before.code]).toEqual([400, 'unauthorized_client']);
      await decided(asked.auth_req_id, 'approve');
      const after = await errorOf(agent.pollToken(asked.auth_req_id));
      expect([after.status, after.code]).toEqual([400, 'unauthorized_client']);
      const issued = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued');
      expect(issued).toHaveLength(1);
    });

    it('retries the same token response, issuing the token once', async () => {
      receiver.script(503, 503);
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((attempt) => attempt.text)).size).toBe(1);
      expect(harness.sleeps).toEqual([1000, 2000]);
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toHaveLength(1);
    });

    it('pushes the error payload access_denied on denial', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'deny');
      expect(receiver.received.map((request) => request.json)).toEqual([{ error: 'access_denied', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
      expect(receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
    });

    it('pushes the error payload access_denied when a wrong number-matching pick denies the request, and no token', async () => {
      const agent = await agentFor('push');
      const asked = await pickedWrong(agent);
      expect(receiver.received.map((request) => request.json)).toEqual([{ error: 'access_denied', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toEqual([]);
    });

    it('pushes the error payload expired_token when the sweeper finds the request expired', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent, { requested_expiry: 30 });
      harness.clock.advance(30);
      expect(await harness.deps.sweeper.sweep()).toBe(1);
      await harness.deps.background.drain();
      expect(receiver.received.map((request) => request.json)).toEqual([{ error: 'expired_token', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
    });

    it('refuses to register a FAPI-CIBA client for the push mode', async () => {
      const { publicKey } = await generateKeyPair('ES256');
      const { status, body } = await harness.admin('POST', '/clients', {
        name: 'FAPI push agent',
        profile: 'fapi-ciba',
        token_delivery_mode: 'push',
        backchannel_client_notification_endpoint: receiver.url,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] },
        backchannel_authentication_request_signing_alg: 'ES256',
      });
      expect([status, body.error]).toEqual([400, 'invalid_request']);
      expect(body.error_description).toMatch(/push/);
    });

    it('refuses a push client without client_notification_token at /bc-authorize', async () => {
      const agent = await agentFor('push');
      const error = await errorOf(agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() }));
      expect([error.status, error.code]).toEqual([400, 'invalid_request']);
    });
  });

  describe('poll', () => {
    it('never notifies a poll client, even one with a notification endpoint, and leaves no deadline behind a decision', async () => {
      const agent = await agentFor('poll');
      const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      await decided(asked.auth_req_id, 'approve');
      harness.clock.advance(300);
      expect(await harness.deps.sweeper.sweep()).toBe(0);
      await harness.deps.background.drain();
      expect(receiver.received).toEqual([]);
    });
  });
});
