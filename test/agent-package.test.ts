import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { registerClient } from './support/agent-package.ts';
import { importedPackages, MACHINE_NODE, pack, ROOT, run, userEnv } from './support/packed-project.ts';
import { payment } from './support/payment.ts';

/**
 * The packed `@countersign/agent`, as a user gets it: both workspace packages built and packed
 * with pnpm (which writes `workspace:*` as the version), installed with plain npm into an empty
 * project outside the workspace, and used from a plain `.mjs` script run by the machine's own
 * Node (20 here: `/usr/bin/node`) without tsx and without the workspace's `countersign-source`
 * condition. The script asks a real server (listening on a port) for an approval; this process
 * approves it with the software passkey; the script redeems, reports and prints what it saw.
 */

const NODE = MACHINE_NODE;

describe('the packed @countersign/agent on plain Node', () => {
  let work: string;
  let project: string;
  let nodeMajor: number;
  let harness: Harness;
  let customer: EnrolledUser;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'countersign-agent-package-'));
    // Built now, so the tarballs hold what the source says even when `pnpm build` did not run first (tsc takes about a second).
    await run('pnpm', ['--filter', './shared', '--filter', './agent', 'run', 'build'], { cwd: ROOT });
    const tarballs = join(work, 'tarballs');
    project = join(work, 'project');
    await Promise.all([mkdir(tarballs), mkdir(project)]);
    const shared = await pack('shared', tarballs);
    const agent = await pack('agent', tarballs);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'agent-package-probe', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', shared, agent], { cwd: project, env: userEnv() });
    await copyFile(join(ROOT, 'test/support/agent-package-flow.mjs'), join(project, 'flow.mjs'));
    await copyFile(join(ROOT, 'examples/sdk/refund.mjs'), join(project, 'refund.mjs'));

    const version = (await run(NODE, ['--version'], { cwd: project, env: userEnv() })).trim();
    nodeMajor = Number(/^v(\d+)\./.exec(version)?.[1]);
    console.log(`agent package test: the script runs on ${NODE} ${version}`);

    const port = await freePort();
    harness = await createHarness({ store: 'redis', publicUrl: `http://localhost:${port}`, env: { POLL_INTERVAL: '1' } });
    await harness.listen(port);
    customer = await harness.enrollUser('customer_1');
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    await harness?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs with npm into a project outside the workspace, every package its built code imports declared', async () => {
    expect(project.startsWith(ROOT)).toBe(false);
    // npm ls exits non-zero on a missing or invalid dependency.
    const installed = JSON.parse(await run('npm', ['ls', '--all', '--json'], { cwd: project, env: userEnv() }));
    const agent = installed.dependencies['@countersign/agent'];
    expect(agent.version).toBe('0.1.0');
    expect(agent.dependencies['@countersign/shared'].version).toBe('0.1.0');
    for (const name of ['@countersign/agent', '@countersign/shared']) {
      const folder = join(project, 'node_modules', name);
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
      const declared = Object.keys(manifest.dependencies ?? {});
      expect(declared.every((dependency) => !String(manifest.dependencies[dependency]).startsWith('workspace:'))).toBe(true);
      const imported = await importedPackages(join(folder, 'dist'));
      expect({ name, missing: imported.filter((dependency) => !declared.includes(dependency)) }).toEqual({ name, missing: [] });
    }
    const agentManifest = JSON.parse(await readFile(join(project, 'node_modules/@countersign/agent/package.json'), 'utf8'));
    expect(await importedPackages(join(project, 'node_modules/@countersign/agent/dist'))).toContain('jose');
    expect(agentManifest.dependencies.jose).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each(['client_secret_basic', 'client_secret_post', 'private_key_jwt'])('asks, is approved, redeems and reports from a plain .mjs script with %s', async (method) => {
    const { clientId, auth } = await registerClient(harness, method);
    const transactionId = `refund_${method}`;
    const details = payment({ transaction_id: transactionId });
    const config = { issuer: harness.issuer, clientId, auth, login_hint: customer.sub, authorization_details: details, reference: `re_${method}` };
    const child = spawn(NODE, ['flow.mjs'], { cwd: project, env: userEnv({ FLOW_CONFIG: JSON.stringify(config) }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolveExit) => child.on('close', resolveExit));

    const lines: Record<string, any>[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      const parsed = JSON.parse(line);
      lines.push(parsed);
      // The person approves on the phone while the script waits.
      if (parsed.step === 'asked') expect((await harness.decide(customer, parsed.auth_req_id, 'approve')).status).toBe(200);
    }
    expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });

    const [asked, done] = lines;
    expect(asked).toMatchObject({ step: 'asked', interval: 1 });
    expect(done).toEqual({
      step: 'done',
      node: expect.stringMatching(new RegExp(`^v${nodeMajor}\\.`)),
      method,
      decision: 'approved',
      // `rdm_<random>.<auth_req_id>` (server/src/redemption/redemption-id.ts).
      redemption_id: expect.stringMatching(new RegExp(`^rdm_[A-Za-z0-9_-]{16,40}\\.${asked!.auth_req_id}$`)),
      idempotency_key: transactionId,
      auth_req_id: asked!.auth_req_id,
      state: 'redeemed',
      outcome: { status: 'succeeded', reference: `re_${method}` },
    });
    // The server agrees: this client's request, redeemed, with the outcome the script reported.
    const stored = (await harness.admin('GET', `/requests/${asked!.auth_req_id}`)).body.request;
    expect([stored.client_id, stored.state, stored.outcome?.status]).toEqual([clientId, 'redeemed', 'succeeded']);
  });

  it("runs the README's refund tool as it is printed there: asks, waits, runs once approved", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const example = await readFile(join(ROOT, 'examples/sdk/refund.mjs'), 'utf8');
    expect(readme).toContain(`\`\`\`js\n${example}\`\`\``);

    const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Refund agent' });
    expect(status).toBe(201);
    const env = userEnv({ COUNTERSIGN_URL: harness.issuer, CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret, APPROVER: customer.sub });
    const child = spawn(NODE, ['refund.mjs'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolveExit) => child.on('close', resolveExit));

    // The person finds the refund on the phone and approves it.
    const mine = async () => ((await harness.admin('GET', '/requests?state=pending')).body.requests as { auth_req_id: string; client_id: string }[]).filter((request) => request.client_id === client.client_id);
    await expect.poll(mine, { timeout: 20_000, interval: 100 }).toHaveLength(1);
    const [asked] = await mine();
    expect(stdout).toBe(''); // nothing ran yet
    expect((await harness.decide(customer, asked!.auth_req_id, 'approve')).status).toBe(200);

    expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: 'executed', tool: 'refund_order', auth_req_id: asked!.auth_req_id, result: { refund_id: expect.stringMatching(/^re_/) } });
    expect(result.outcome).toMatchObject({ status: 'succeeded', reference: result.result.refund_id });
    const stored = (await harness.admin('GET', `/requests/${asked!.auth_req_id}`)).body.request;
    expect(stored).toMatchObject({ state: 'redeemed', authorization_details: [{ type: 'payment', transaction_id: 'refund_1042', amount_minor: 4900, currency: 'EUR' }] });
  });
});
