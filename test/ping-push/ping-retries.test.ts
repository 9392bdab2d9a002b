/** Ping delivery (CIBA Core §10.2): retries with backoff, giving up, no retry on a 4xx, and a ping client without a notification token. */
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { errorOf } from '../support/refusal.ts';
import { NOTIFICATION_TOKEN, useNotifications } from './support.ts';

describe.each(['memory', 'redis'] as const)('ping and push notifications (%s store)', (storeKind) => {
  const ctx = useNotifications(storeKind);
  const { agentFor, ask, auditOf, decided } = ctx;

  describe('ping', () => {
    it('retries a failing endpoint with backoff: 500, then a timeout, then delivered on the 3rd attempt', async () => {
      ctx.receiver.script(500, 'hang');
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');

      expect(ctx.receiver.received).toHaveLength(3);
      for (const attempt of ctx.receiver.received) {
        expect(attempt.text).toBe(JSON.stringify({ auth_req_id: asked.auth_req_id }));
        expect(attempt.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      }
      expect(ctx.harness.sleeps).toEqual([1000, 2000]);
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

      expect(ctx.harness.sleeps).toEqual([1000, 2000, 4000, 8000]);
      const failed = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'notify_failed');
      expect(failed).toMatchObject([{ reason: 'endpoint_unreachable', detail: { mode: 'ping', attempts: 5 } }]);
      const polled = await agent.pollToken(asked.auth_req_id);
      if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
      expect((await agent.redeem(polled.token.access_token, payment())).status).toBe('redeemed');
    });

    it('does not retry an endpoint that refuses the notification with a 4xx', async () => {
      ctx.receiver.script(401);
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      expect(ctx.receiver.received).toHaveLength(1);
      expect(ctx.harness.sleeps).toEqual([]);
      const failed = (await auditOf(asked.auth_req_id)).filter((event) => event.type === 'notify_failed');
      expect(failed).toMatchObject([{ reason: 'endpoint_error', detail: { attempts: 1, status: 401 } }]);
    });

    it('refuses a ping client without client_notification_token at /bc-authorize, storing nothing', async () => {
      const agent = await agentFor('ping');
      const error = await errorOf(agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() }));
      expect([error.status, error.code]).toEqual([400, 'invalid_request']);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
      ctx.harness.clock.advance(600);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
    });
  });
});
