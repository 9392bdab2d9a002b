import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { testPolicy } from './guarantees/policy-support.ts';
import { payment } from './support/payment.ts';
import { ADMIN_TOKEN, deployedServer, enroll, redis, startBuilt } from './support/built-server.ts';

/** SIGTERM under load on the deployed server: every accepted request answered or refused, no half-written record. */
deployedServer();

describe('the built server, run with plain node', () => {
  it('answers or refuses every request it accepted when SIGTERM comes under load, and leaves no half-written record', async () => {
    // Room for the whole burst: the shipped policy allows a person 10 pending requests.
    // Room for the whole burst (the shipped policy allows a person 10 pending requests), and a
    // second of draining, as behind a load balancer that takes that long to see /readyz fail.
    const server = await startBuilt(`redis://127.0.0.1:${redis.port}/2`, { POLICY_FILE: testPolicy((policy) => void (policy.limits.max_pending_per_user = 500)), SHUTDOWN_DRAIN_SECONDS: '1' });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const json = { 'content-type': 'application/json' };
    const client = await (await fetch(`${server.url}/api/admin/clients`, { method: 'POST', headers: { ...admin, ...json }, body: JSON.stringify({ name: 'Load' }) })).json();
    await enroll(server.url, 'bob');
    const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const ask = (n: number) =>
      fetch(`${server.url}/bc-authorize`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ scope: 'openid', login_hint: 'bob', binding_message: `Order ${n}`, authorization_details: JSON.stringify(payment({ transaction_id: `txn_${n}`, amount_minor: 100 + n })) }).toString(),
      }).then(
        async (answer) => ({ kind: 'answered' as const, status: answer.status, body: await answer.json() }),
        (error: Error & { cause?: { code?: string } }) => ({ kind: 'failed' as const, code: error.cause?.code ?? error.message }),
      );
    const first = await Promise.all(Array.from({ length: 20 }, (_, n) => ask(n)));
    expect(first.map((outcome) => (outcome.kind === 'answered' ? `${outcome.status} ${outcome.body.error ?? ''}` : outcome.code))).toEqual(first.map(() => '200 '));
    // A burst in flight when the signal lands, then more while the server stops.
    const burst = Array.from({ length: 60 }, (_, n) => ask(100 + n));
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    const late = Array.from({ length: 20 }, (_, n) => new Promise((resolve) => setTimeout(resolve, n * 5)).then(() => ask(200 + n)));
    // The signal lands a moment after kill(): /readyz turns 503 once the server has it, and stays so through the drain.
    let ready = await fetch(`${server.url}/readyz`);
    for (let tries = 0; ready.status === 200 && tries < 50; tries++) ready = await new Promise((resolve) => setTimeout(resolve, 10)).then(() => fetch(`${server.url}/readyz`));
    expect([ready.status, ready.headers.get('connection')]).toEqual([503, 'close']);
    const outcomes = [...first, ...(await Promise.all(burst)), ...(await Promise.all(late))];
    expect(await server.exited).toBe(0);
    // Stopped: a new connection is refused, not accepted and dropped.
    expect(await ask(999)).toEqual({ kind: 'failed', code: 'ECONNREFUSED' });

    // Accepted and answered (a request or a clear refusal), or never accepted (refused at connect): never cut midway.
    for (const outcome of outcomes) {
      if (outcome.kind === 'answered') expect([200, 503]).toContain(outcome.status);
      else expect(outcome.code).toBe('ECONNREFUSED');
    }
    const granted = outcomes.flatMap((outcome) => (outcome.kind === 'answered' && outcome.status === 200 ? [outcome.body.auth_req_id as string] : []));
    expect(granted.length).toBeGreaterThan(20);
    // Every request the server said yes to is stored whole, and it stored no other.
    const store = new Redis(redis.port, { db: 2 });
    try {
      const requestKeys = (await store.keys('cs:req:*')).filter((key) => /^cs:req:\{[^}]+\}$/.test(key));
      const stored = await Promise.all(requestKeys.map((key) => store.hgetall(key)));
      const ids = stored.map((fields) => fields.auth_req_id).filter(Boolean);
      expect(new Set(ids)).toEqual(new Set(granted));
      for (const fields of stored) expect(fields).toMatchObject({ state: 'pending', details_hash: expect.any(String), created_at: expect.any(String), sub: 'bob' });
    } finally {
      store.disconnect();
    }
  });
});
