import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createRedisPendingApprovals } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentProcessConfig } from './support/agent-process.ts';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';

/**
 * An agent whose process is replaced while a gated call waits: the pending approval is in Redis,
 * so the next process, making the same call, resumes it. No second request reaches the person and
 * the tool runs once. Two real processes of the agent, a real server, a real Redis.
 */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const AGENT = 'test/support/agent-process.ts';

describe('an agent restarted while its call waits', () => {
  let harness: Harness;
  let alice: EnrolledUser;
  let config: AgentProcessConfig;
  let configFile: string;
  const redis = new Redis(inject('redisUrl'));

  beforeAll(async () => {
    const port = await freePort();
    harness = await createHarness({ store: 'redis', publicUrl: `http://localhost:${port}` });
    await harness.listen(port);
    alice = await harness.enrollUser('alice');
    const { client_id, client_secret } = await harness.createClient('Invoice agent');
    const folder = mkdtempSync(join(tmpdir(), 'countersign-agent-'));
    config = {
      issuer: harness.issuer,
      clientId: client_id,
      clientSecret: client_secret,
      redisUrl: inject('redisUrl'),
      prefix: `test:{agent-${randomBytes(6).toString('hex')}}:`,
      approver: 'alice',
      executions: join(folder, 'executions.jsonl'),
      calls: join(folder, 'calls.log'),
      args: { invoice_id: 'inv_2041', amount_minor: 4_900 },
    };
    configFile = join(folder, 'config.json');
    writeFileSync(configFile, JSON.stringify(config));
  });

  afterAll(async () => {
    await harness.close();
    await redis.quit();
  });

  function startAgent(): { child: ChildProcess; output: Promise<string> } {
    const child = spawn(process.execPath, ['--conditions=countersign-source', '--import', 'tsx', AGENT, configFile], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const output = new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('error', reject);
      child.on('exit', () => resolve(text));
    });
    return { child, output };
  }

  it('resumes in the new process without asking again, and the tool runs once', async () => {
    const store = createRedisPendingApprovals(redis, { prefix: config.prefix });
    const first = startAgent();
    // The first process asked and now waits its polling interval: its approval is in Redis.
    await expect.poll(() => store.list(), { timeout: 20_000, interval: 100 }).toHaveLength(1);
    const [waiting] = await store.list();
    first.child.kill('SIGKILL');
    expect(await first.output).toBe('');

    expect((await harness.decide(alice, waiting!.auth_req_id, 'approve')).status).toBe(200);
    const second = startAgent();
    const result = JSON.parse(await second.output) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'executed', tool: 'pay_invoice', auth_req_id: waiting!.auth_req_id, result: { payment_id: 'pay_inv_2041' } });
    expect(result.outcome).toMatchObject({ status: 'succeeded', reference: 'pay_inv_2041' });

    const executions = readFileSync(config.executions, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { pid: number; invoice_id: string; amount_minor: number });
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({ pid: second.child.pid, invoice_id: 'inv_2041', amount_minor: 4_900 });
    // One request only: the one the first process asked for, now redeemed with its outcome.
    const stored = await harness.admin('GET', `/requests/${waiting!.auth_req_id}`);
    expect(stored.body.request).toMatchObject({ state: 'redeemed', client_id: config.clientId });
    const pending = await harness.admin('GET', '/requests?state=pending');
    expect(pending.body.requests.filter((request: { client_id: string }) => request.client_id === config.clientId)).toEqual([]);
    expect(await store.list()).toEqual([]);
    // What each process said to the server: the first asked; the second only read the decision.
    const calls = readFileSync(config.calls, 'utf8').trim().split('\n');
    expect(calls).toEqual([`${first.child.pid} POST /bc-authorize`, `${second.child.pid} POST /token`, `${second.child.pid} POST /redeem`, expect.stringMatching(new RegExp(`^${second.child.pid} POST /redemptions/rdm_[\\w.-]+/outcome$`))]);
  });
});
