import { describe, expect, it } from 'vitest';
import { bcAuthorize, pay } from '../guarantees/policy-support.ts';
import { openEventStream } from '../support/cluster.ts';
import type { Harness } from '../support/harness.ts';
import { expectTooMany, rateLimitSuite } from './support.ts';

/** One deployment, one allowance: the limits count on every instance together. */
describe.each(['memory', 'redis'] as const)('rate limits (%s store)', (storeKind) => {
  const { start } = rateLimitSuite(storeKind);

  it('counts on every instance of the deployment together: one client’s calls, one session’s open streams', async () => {
    const { harness, alice, agent } = await start();
    const second = await harness.instance();
    try {
      const on = (instance: Harness, id: string) => bcAuthorize(instance, agent, { login_hint: 'alice', details: pay(id) });
      expect([(await on(harness, 'txn_1')).status, (await on(second, 'txn_2')).status, (await on(harness, 'txn_3')).status]).toStrictEqual([200, 200, 200]);
      expectTooMany(await on(second, 'txn_4'), 'too_many_requests', 20);
      const streams = [await openEventStream(harness, alice.cookie), await openEventStream(second, alice.cookie)];
      expect((await second.app.request(`${second.issuer}/api/device/events`, { headers: { cookie: alice.cookie } })).status).toBe(429);
      expect((await harness.app.request(`${harness.issuer}/api/device/events`, { headers: { cookie: alice.cookie } })).status).toBe(429);
      await Promise.all(streams.map((stream) => stream.close()));
    } finally {
      await second.close();
    }
  });
});
