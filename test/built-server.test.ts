import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPolicy } from './guarantees/policy-support.ts';
import { freePort } from './support/harness.ts';
import { startRedisServer, stopRedisServer, type RedisServerProcess } from './support/cluster.ts';
import { payment } from './support/payment.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

/**
 * The built server (README "Running in production"): `pnpm build` emits
 * `server/dist/`, `pnpm deploy --prod` makes a runtime folder of it outside the repository, and
 * plain `node dist/main.js` runs that without tsx, dev dependencies or the workspace's
 * source-condition, on a Redis of this file's own. The
 * whole flow passes against it over HTTP; SIGTERM under load answers or refuses every request it
 * accepted, leaves no half-written record, and exits 0.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The runtime folder `pnpm deploy --prod` makes of the built server: its dist/ and its production dependencies only. */
const DEPLOYED = mkdtempSync(join(tmpdir(), 'countersign-deployed-'));
const MAIN = join(DEPLOYED, 'dist', 'main.js');
const ADMIN_TOKEN = 'built-admin-token-0123456789abcdef';

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node server/dist/main.js` and answers once it listens. */
async function startBuilt(redisUrl: string, extraEnv: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-built-'));
  // No NODE_OPTIONS: pnpm's `--conditions=countersign-source` would load the workspace's TypeScript.
  const env = { PATH: process.env.PATH ?? '', HOME: cwd, PORT: String(port), PUBLIC_URL: url, REDIS_URL: redisUrl, ADMIN_TOKEN, LOG_LEVEL: 'info', ...extraEnv };
  const child = spawn(process.execPath, [MAIN], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      rmSync(cwd, { recursive: true, force: true });
      resolve(code);
    }),
  );
  const deadline = Date.now() + 20_000;
  while (!output.includes('countersign listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the built server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url, output: () => output, exited };
}

/** Creates `sub` through the admin API and enrolls a software passkey through the device API; answers the device session. */
async function enroll(url: string, sub: string) {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const json = { origin: url, 'content-type': 'application/json' };
  expect((await fetch(`${url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ sub, display_name: sub }) })).status).toBe(201);
  const { enrollment_code } = await (await fetch(`${url}/api/admin/users/${sub}/enrollments`, { method: 'POST', headers: admin })).json();
  const authenticator = createSoftAuthenticator({ origin: url, rpId: 'localhost' });
  const options = await (await fetch(`${url}/api/device/enroll/options`, { method: 'POST', headers: json, body: JSON.stringify({ enrollment_code }) })).json();
  const response = await authenticator.register(options);
  const enrolled = await fetch(`${url}/api/device/enroll/verify`, { method: 'POST', headers: json, body: JSON.stringify({ enrollment_code, response, device_name: 'Phone' }) });
  expect(enrolled.status).toBe(200);
  return { authenticator, cookie: (enrolled.headers.get('set-cookie') ?? '').split(';')[0]! };
}

describe('the built server, run with plain node', () => {
  let redis: RedisServerProcess;

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'server/dist/main.js')), 'pnpm build emits server/dist/main.js').toBe(true);
    execFileSync('pnpm', ['--filter', '@countersign/server', 'deploy', '--prod', DEPLOYED], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_OPTIONS: '' } });
    // No development dependency made it: pino-pretty, tsx, vitest.
    expect(['pino', 'prom-client', 'hono', '@countersign/shared'].map((name) => existsSync(join(DEPLOYED, 'node_modules', name)))).toEqual([true, true, true, true]);
    expect(['pino-pretty', 'tsx', 'vitest'].map((name) => existsSync(join(DEPLOYED, 'node_modules', name)))).toEqual([false, false, false]);
    redis = await startRedisServer();
  }, 60_000);
  afterAll(async () => {
    await stopRedisServer(redis);
    rmSync(DEPLOYED, { recursive: true, force: true });
  });

  it('passes the whole flow over HTTP, then stops on SIGTERM with exit code 0', async () => {
    const server = await startBuilt(`redis://127.0.0.1:${redis.port}/1`);
    const call = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const form = typeof init.body === 'string';
      const answer = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(init.body === undefined ? {} : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }), ...init.headers },
        ...(init.body === undefined ? {} : { body: form ? (init.body as string) : JSON.stringify(init.body) }),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : null, headers: answer.headers };
    };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const origin = { origin: server.url };

    const client = (await call('POST', '/api/admin/clients', { body: { name: 'Refund bot' }, headers: admin })).body;
    expect(client.client_secret).toEqual(expect.any(String));
    const basic = { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` };
    const { authenticator, cookie: session } = await enroll(server.url, 'alice');
    const cookie = { cookie: session, ...origin };

    const details = payment({ amount_minor: 1500 });
    const asked = await call('POST', '/bc-authorize', { body: new URLSearchParams({ scope: 'openid', login_hint: 'alice', binding_message: 'Order 1042', authorization_details: JSON.stringify(details) }).toString(), headers: basic });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const id = asked.body.auth_req_id as string;
    const view = await call('GET', `/api/device/requests/${id}`, { headers: cookie });
    const picked = asked.body.binding_code as string | undefined;
    const response = await authenticator.authenticate(picked ? view.body.options.approve_by_code[picked] : view.body.options.approve);
    expect((await call('POST', `/api/device/requests/${id}/decision`, { body: { decision: 'approve', response, ...(picked ? { selected_code: picked } : {}) }, headers: cookie })).status).toBe(200);
    const token = await call('POST', '/token', { body: `grant_type=urn:openid:params:grant-type:ciba&auth_req_id=${id}`, headers: basic });
    expect(token.status).toBe(200);
    const redeemed = await call('POST', '/redeem', { body: { token: token.body.access_token, authorization_details: details }, headers: basic });
    expect(redeemed.body).toMatchObject({ status: 'redeemed', redemption_id: expect.any(String) });
    expect((await call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status: 'succeeded', reference: 'pay_1' }, headers: basic })).status).toBe(200);
    expect((await call('GET', `/api/admin/requests/${id}`, { headers: admin })).body.request).toMatchObject({ state: 'redeemed' });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('countersign stopping');
  });

  it('serves the operator console and the approver PWA that its dist/ carries', async () => {
    const server = await startBuilt(`redis://127.0.0.1:${redis.port}/3`);
    try {
      const page = await fetch(`${server.url}/console`);
      expect([page.status, page.headers.get('content-type'), page.headers.get('cache-control')]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
      const html = await page.text();
      // vite's build: one hashed script and one hashed style sheet under /console/assets/.
      const script = /<script type="module" crossorigin src="(\/console\/assets\/[\w-]+\.js)"><\/script>/.exec(html)?.[1];
      const style = /<link rel="stylesheet" crossorigin href="(\/console\/assets\/[\w-]+\.css)">/.exec(html)?.[1];
      expect([script, style], html).toEqual([expect.any(String), expect.any(String)]);
      const js = await fetch(`${server.url}${script}`);
      expect([js.status, js.headers.get('content-type'), js.headers.get('cache-control')]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
      expect(await js.text()).toContain('countersign.console.admin-token');
      const css = await fetch(`${server.url}${style}`);
      expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
      const pwa = await fetch(`${server.url}/`);
      expect(pwa.status).toBe(200);
      expect(await pwa.text()).toContain('<title>Countersign</title>');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

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
