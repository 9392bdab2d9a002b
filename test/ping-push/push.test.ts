/** Push delivery (CIBA Core §10.3): the token response or error payload delivered to the client's endpoint, and the clients push mode refuses. */
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { payment } from '../support/payment.ts';
import { errorOf } from '../support/refusal.ts';
import { NOTIFICATION_TOKEN, expectedAtHash, useNotifications } from './support.ts';

describe.each(['memory', 'redis'] as const)('ping and push notifications (%s store)', (storeKind) => {
  const ctx = useNotifications(storeKind);
  const { agentFor, ask, auditOf, decided, pickedWrong } = ctx;

  describe('push', () => {
    it('delivers the token response to the endpoint; its id_token verifies and binds the access token and the request', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');

      expect(ctx.receiver.received).toHaveLength(1);
      const [push] = ctx.receiver.received;
      expect(push!.headers['content-type']).toBe('application/json');
      expect(push!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      const body = push!.json as Record<string, any>;
      expect(Object.keys(body).sort()).toEqual(['access_token', 'auth_req_id', 'authorization_details', 'expires_in', 'id_token', 'token_type']);
      expect(body).toMatchObject({ auth_req_id: asked.auth_req_id, token_type: 'Bearer', expires_in: 600, authorization_details: payment() });

      const jwks = createLocalJWKSet((await ctx.harness.call('GET', '/jwks.json')).body);
      const { payload, protectedHeader } = await jwtVerify(body.id_token, jwks, { issuer: ctx.harness.issuer, audience: agent.clientId, currentDate: new Date(ctx.harness.clock.now()) });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload.sub).toBe(ctx.customer.sub);
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
      ctx.receiver.script(503, 503);
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      expect(ctx.receiver.received).toHaveLength(3);
      expect(new Set(ctx.receiver.received.map((attempt) => attempt.text)).size).toBe(1);
      expect(ctx.harness.sleeps).toEqual([1000, 2000]);
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toHaveLength(1);
    });

    it('pushes the error payload access_denied on denial', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'deny');
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ error: 'access_denied', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
      expect(ctx.receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
    });

    it('pushes the error payload access_denied when a wrong number-matching pick denies the request, and no token', async () => {
      const agent = await agentFor('push');
      const asked = await pickedWrong(agent);
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ error: 'access_denied', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toEqual([]);
    });

    it('pushes the error payload expired_token when the sweeper finds the request expired', async () => {
      const agent = await agentFor('push');
      const asked = await ask(agent, { requested_expiry: 30 });
      ctx.harness.clock.advance(30);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(1);
      await ctx.harness.deps.background.drain();
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ error: 'expired_token', error_description: expect.any(String), auth_req_id: asked.auth_req_id }]);
    });

    it('refuses to register a FAPI-CIBA client for the push mode', async () => {
      const { publicKey } = await generateKeyPair('ES256');
      const { status, body } = await ctx.harness.admin('POST', '/clients', {
        name: 'FAPI push agent',
        profile: 'fapi-ciba',
        token_delivery_mode: 'push',
        backchannel_client_notification_endpoint: ctx.receiver.url,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] },
        backchannel_authentication_request_signing_alg: 'ES256',
      });
      expect([status, body.error]).toEqual([400, 'invalid_request']);
      expect(body.error_description).toMatch(/push/);
    });

    it('refuses a push client without client_notification_token at /bc-authorize', async () => {
      const agent = await agentFor('push');
      const error = await errorOf(agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() }));
      expect([error.status, error.code]).toEqual([400, 'invalid_request']);
    });
  });
});
