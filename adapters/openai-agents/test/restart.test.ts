import { createRedisPendingApprovals } from '@countersign/agent';
import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect, inject, it } from 'vitest';
import { createHarness, freePort, type Harness } from '../../../test/support/harness.ts';
import { decodeSavedRun } from '../src/index.ts';

/**
 * Restart: the agent's process is killed while a gated call waits for the person; a new
 * process, sharing nothing with it but Redis and the server, finds the pending approval, rebuilds
 * the run from the RunState kept with it, and continues. The refund runs once, in the new process.
 */

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/support-agent.ts', import.meta.url));

const redis = new Redis(inject('redisUrl'), { lazyConnect: true });
afterAll(() => redis.quit());

let harness: Harness;
let dir: string;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await harness.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the agent process (TypeScript through tsx, as `pnpm` runs the workspace's scripts). */
function startAgent(step: 'start' | 'resume', env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=countersign-source', '--import', 'tsx', AGENT], { cwd: REPO_ROOT, env: { ...process.env, ...env, STEP: step }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  /** The first JSON line that has `key`; throws with the process's stderr when it ends first. */
  async function line(key: string): Promise<any> {
    for (;;) {
      const next = await lines.next();
      if (next.done) throw new Error(`the agent process ended without "${key}": ${stderr}`);
      if (next.value.startsWith('{')) {
        const parsed = JSON.parse(next.value);
        if (key in parsed) return parsed[key];
      }
    }
  }
  return { child, line };
}

it('resumes a run whose process was killed while its call waited: the tool runs once, in the new process', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  harness = await createHarness({ store: 'redis', publicUrl: issuer });
  await harness.listen(port);
  const person = await harness.enrollUser('support_lead');
  const { client_id, client_secret } = await harness.createClient('Support agent');
  dir = mkdtempSync(join(tmpdir(), 'countersign-openai-agents-'));
  const ledgerFile = join(dir, 'ledger.jsonl');
  writeFileSync(ledgerFile, '');
  const ledger = () =>
    readFileSync(ledgerFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text));
  const prefix = `test:{oa-restart-${randomBytes(6).toString('hex')}}:`;
  const env = { ISSUER: issuer, CLIENT_ID: client_id, CLIENT_SECRET: client_secret, REDIS_URL: inject('redisUrl'), PENDING_PREFIX: prefix, LEDGER_FILE: ledgerFile };
  const store = createRedisPendingApprovals(redis, { prefix });

  const first = startAgent('start', env);
  const waiting = await first.line('waiting');
  expect(waiting).toMatchObject({ tool: 'refund_order', arguments: { order_id: '1042', amount_minor: 49000 } });
  // What survives the process: the pending approval in Redis, with the paused run and no token yet.
  const [record] = await store.list();
  expect(record).toMatchObject({ auth_req_id: waiting.auth_req_id, tool: 'refund_order' });
  expect(record?.access_token).toBeUndefined();
  expect(decodeSavedRun(record?.run_state)).toMatchObject({ run_id: waiting.run_id, agent: 'Support', seq: 1 });

  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  expect(ledger()).toEqual([]);
  expect((await harness.decide(person, waiting.auth_req_id, 'approve')).status).toBe(200);

  const second = startAgent('resume', env);
  const [resumed] = await second.line('resumed');
  expect(resumed).toMatchObject({ run_id: waiting.run_id, interruptions: 0 });
  const refunds = ledger();
  expect(refunds).toEqual([{ pid: second.child.pid, order_id: '1042', amount_minor: 49000, currency: 'EUR', idempotency_key: expect.any(String) }]);
  // The model of the new process got the real outcome of the refund it made.
  const told = JSON.parse(resumed.finalOutput.replace('Refund done: ', ''));
  expect(told).toMatchObject({ status: 'executed', result: { refund_id: `re_${refunds[0].idempotency_key.slice(0, 12)}` }, outcome: { status: 'succeeded', reported: true }, auth_req_id: waiting.auth_req_id });
  const view = await harness.call('GET', `/requests/${waiting.auth_req_id}`, { headers: { authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}` } });
  expect(view.body).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded' } });
  expect(await store.list()).toEqual([]);
  await once(second.child, 'exit');
  expect(second.child.exitCode).toBe(0);

  // A third process finds nothing left to resume, and nothing runs again.
  const third = startAgent('resume', env);
  expect(await third.line('resumed')).toEqual([]);
  expect(ledger()).toHaveLength(1);
});
