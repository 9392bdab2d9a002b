import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { bcAuthorize, device, pay, pollToken } from '../guarantees/policy-support.ts';
import { basic, type Client, expectTooMany, rateLimitSuite, watchWrites } from './support.ts';

/** Limits per client on `/bc-authorize`, `/token` (and request views), `/redeem` and outcome reports: 429 and only the counter written. */
describe.each(['memory', 'redis'] as const)('rate limits (%s store)', (storeKind) => {
  const { start, redeem } = rateLimitSuite(storeKind);

  describe('per client', () => {
    it('refuses /bc-authorize over the client’s limit with 429 too_many_requests, storing and auditing nothing; time and other clients go on', async () => {
      const { harness, clock, audit, alice, agent, other } = await start();
      const watch = watchWrites(harness);
      for (const id of ['txn_1', 'txn_2', 'txn_3']) expect((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay(id) })).status).toBe(200);
      await harness.drain();
      const proposed = audit.length;
      const { result: refused, writes } = await watch.during(() => bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') }));
      expectTooMany(refused, 'too_many_requests', 20);
      // Only the counter is touched: no request, no idempotency key, no window, no audit event.
      expect(writes).toStrictEqual([['rateLimit', keys.rate('bcAuthorize', `default:${agent.client_id}`)]]);
      expect(audit).toHaveLength(proposed);
      expect((await device(harness, alice, 'GET', '/requests')).body.requests).toHaveLength(3);
      // Another client has an allowance of its own.
      expect((await bcAuthorize(harness, other, { login_hint: 'alice', details: pay('txn_other') })).status).toBe(200);
      clock.advance(19);
      expectTooMany(await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') }), 'too_many_requests', 1);
      clock.advance(1);
      expect((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') })).status).toBe(200);
      expectTooMany(await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_5') }), 'too_many_requests', 20);
    });

    it('answers a /token flood over many auth_req_ids with 429 slow_down, before any poll is recorded', async () => {
      const { harness, clock, agent, other } = await start({ RATE_LIMIT_BC_AUTHORIZE: '10/60' });
      const ids: string[] = [];
      for (const id of ['txn_1', 'txn_2', 'txn_3', 'txn_4']) ids.push((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay(id) })).body.auth_req_id);
      for (const id of ids.slice(0, 3)) expect((await pollToken(harness, agent, id)).body.error).toBe('authorization_pending');
      const watch = watchWrites(harness);
      const before = await harness.store.hashGet(keys.request('default', ids[3]!));
      const { result: refused, writes } = await watch.during(() => pollToken(harness, agent, ids[3]!));
      expectTooMany(refused, 'slow_down', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('token', `default:${agent.client_id}`)]]);
      expect(await harness.store.hashGet(keys.request('default', ids[3]!))).toStrictEqual(before);
      // Another client's polls are its own (its unknown id answers as usual).
      expect((await pollToken(harness, other, ids[3]!)).body.error).toBe('invalid_grant');
      clock.advance(20);
      expect((await pollToken(harness, agent, ids[3]!)).body.error).toBe('authorization_pending');
      expect((await pollToken(harness, agent, ids[0]!)).status).toBe(429);
    });

    it('refuses /redeem over the client’s limit with 429 too_many_requests, without the refusal audit every other refused redeem gets', async () => {
      const { harness, clock, audit, agent, other } = await start();
      for (let i = 0; i < 3; i++) expect((await redeem(agent)).body.error).toBe('invalid_token');
      expect(audit.filter((event) => event.type === 'refused').map((event) => event.reason)).toStrictEqual(['invalid_token', 'invalid_token', 'invalid_token']);
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => redeem(agent));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('redeem', `default:${agent.client_id}`)]]);
      expect(audit.filter((event) => event.type === 'refused')).toHaveLength(3);
      expect((await redeem(other)).body.error).toBe('invalid_token');
      clock.advance(20);
      expect((await redeem(agent)).body.error).toBe('invalid_token');
      expect((await redeem(agent)).status).toBe(429);
    });

    it('counts the client’s views of a request (GET and POST /requests/{id}) with its /token polls, answering 429 slow_down over them and writing only the counter', async () => {
      const { harness, clock, agent, other } = await start();
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_1') })).body.auth_req_id;
      const view = (client: Client, method: 'GET' | 'POST') => harness.call(method, `/requests/${id}`, { headers: { authorization: basic(client), ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, ...(method === 'POST' ? { body: '' } : {}) });
      expect((await pollToken(harness, agent, id)).body.error).toBe('authorization_pending');
      expect((await view(agent, 'GET')).body.state).toBe('pending');
      expect((await view(agent, 'POST')).body.state).toBe('pending');
      const watch = watchWrites(harness);
      // The request's push has landed: what `before` holds is what the refused views must leave.
      await harness.drain();
      const before = await harness.store.hashGet(keys.request('default', id));
      for (const method of ['GET', 'POST'] as const) {
        const { result: refused, writes } = await watch.during(() => view(agent, method));
        expectTooMany(refused, 'slow_down', 20);
        expect(writes).toStrictEqual([['rateLimit', keys.rate('token', `default:${agent.client_id}`)]]);
      }
      expect(await harness.store.hashGet(keys.request('default', id))).toStrictEqual(before);
      // Polling is polling: /token is out of allowance too, and another client has its own.
      expectTooMany(await pollToken(harness, agent, id), 'slow_down', 20);
      expect((await view(other, 'GET')).body.error).toBe('not_found');
      clock.advance(20);
      expect((await view(agent, 'GET')).body.state).toBe('pending');
      expectTooMany(await view(agent, 'POST'), 'slow_down', 20);
    });

    it('refuses outcome reports over the client’s own limit with 429 too_many_requests, without the audit a conflicting report gets', async () => {
      const { harness, clock, audit, alice, agent, other } = await start();
      const details = pay('txn_1');
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details })).body.auth_req_id;
      expect((await harness.decide(alice, id, 'approve')).status).toBe(200);
      const token = (await pollToken(harness, agent, id)).body.access_token;
      const redeemed = await harness.call('POST', '/redeem', { body: { token, authorization_details: details }, headers: { authorization: basic(agent) } });
      expect(redeemed.status).toBe(200);
      const report = (client: Client, status: 'succeeded' | 'failed') => harness.call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status }, headers: { authorization: basic(client) } });
      // The outcome has a limit of its own: the client's /token and /redeem calls above spent none of it.
      expect((await report(agent, 'succeeded')).status).toBe(200);
      expect((await report(agent, 'failed')).body.error).toBe('outcome_conflict');
      expect((await report(agent, 'succeeded')).status).toBe(200);
      await harness.drain();
      const refusals = audit.filter((event) => event.type === 'refused').length;
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => report(agent, 'failed'));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('outcome', `default:${agent.client_id}`)]]);
      expect(audit.filter((event) => event.type === 'refused')).toHaveLength(refusals);
      expect((await report(other, 'succeeded')).body.error).toBe('not_found');
      clock.advance(20);
      expect((await report(agent, 'succeeded')).status).toBe(200);
      expect((await report(agent, 'succeeded')).status).toBe(429);
    });
  });
});
