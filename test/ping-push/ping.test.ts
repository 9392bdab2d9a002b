/** Ping delivery (CIBA Core §10.2): a ping on each decision and on expiry, delivered once or twice alike, and the bearer kept out of the trail. */
import { describe, expect, it } from 'vitest';
import { keys } from '../../server/src/store/index.ts';
import { NOTIFICATION_TOKEN, useNotifications } from './support.ts';

describe.each(['memory', 'redis'] as const)('ping and push notifications (%s store)', (storeKind) => {
  const ctx = useNotifications(storeKind);
  const { agentFor, ask, auditOf, decided, pickedWrong } = ctx;

  describe('ping', () => {
    it('POSTs {auth_req_id} as JSON with the bearer token on approval; the token is then pollable', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await ctx.harness.deps.background.drain();
      expect(ctx.receiver.received).toEqual([]);

      await decided(asked.auth_req_id, 'approve');
      expect(ctx.receiver.received).toHaveLength(1);
      const [ping] = ctx.receiver.received;
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
      expect(ctx.receiver.received).toHaveLength(1);
      // The state an instance leaves when it is killed after the POST and before it marks the request
      // notified: the job is still pending, and whoever takes it over pings again (the queue is at least once).
      expect(await ctx.harness.deps.store.hashDelete(keys.request('default', asked.auth_req_id), 'notified_at')).toBe(true);
      ctx.harness.clock.advance(3);
      await ctx.harness.deps.jobs.enqueue({ kind: 'client_notification', tenant: 'default', auth_req_id: asked.auth_req_id });
      await ctx.harness.drain();
      expect(ctx.receiver.received).toHaveLength(2);
      const [first, second] = ctx.receiver.received;
      expect(second!.text).toBe(first!.text);
      expect(second!.text).toBe(JSON.stringify({ auth_req_id: asked.auth_req_id }));
      expect(second!.headers).toStrictEqual(first!.headers);
      expect([second!.method, second!.path]).toStrictEqual([first!.method, first!.path]);
    });

    it('keeps the client_notification_token out of the audit trail and the admin view', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'approve');
      const audit = await ctx.harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
      const view = await ctx.harness.admin('GET', `/requests/${asked.auth_req_id}`);
      expect(view.body.request).toMatchObject({ token_delivery_mode: 'ping', state: 'approved' });
      expect(JSON.stringify(audit.body)).not.toContain(NOTIFICATION_TOKEN);
      expect(JSON.stringify(view.body)).not.toContain(NOTIFICATION_TOKEN);
    });

    it('pings on denial; the poll then answers access_denied', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent);
      await decided(asked.auth_req_id, 'deny');
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    });

    it('pings when a wrong number-matching pick denies the request; the poll then answers access_denied', async () => {
      const agent = await agentFor('ping');
      const asked = await pickedWrong(agent);
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(ctx.receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
      expect((await auditOf(asked.auth_req_id)).filter((event) => event.type === 'token_issued')).toEqual([]);
    });

    it('pings on expiry found by the sweeper, with nobody polling; a late approval then sends nothing', async () => {
      const agent = await agentFor('ping');
      const asked = await ask(agent, { requested_expiry: 60 });
      const view = await ctx.harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: ctx.customer.cookie } });

      ctx.harness.clock.advance(59);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
      ctx.harness.clock.advance(1);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(1);
      await ctx.harness.deps.background.drain();
      expect(ctx.receiver.received.map((request) => request.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(ctx.receiver.received[0]!.headers.authorization).toBe(`Bearer ${NOTIFICATION_TOKEN}`);

      // Every door agrees: the token endpoint and the device's decision see the expiry.
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
      const late = await ctx.customer.authenticator.authenticate(view.body.options.approve);
      const decision = await ctx.harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'approve', response: late }, headers: { cookie: ctx.customer.cookie, origin: ctx.harness.issuer } });
      expect([decision.status, decision.body.error]).toEqual([400, 'expired_token']);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
      await ctx.harness.deps.background.drain();
      expect(ctx.receiver.received).toHaveLength(1);
      const types = (await auditOf(asked.auth_req_id)).map((event) => event.type);
      expect(types.filter((type) => type === 'expired' || type === 'notified')).toEqual(['expired', 'notified']);
    });
  });
});
