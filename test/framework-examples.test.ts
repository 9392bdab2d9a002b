import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { approveWhileRunning, expectRedeemedRefund, NODE_24, REFUND } from './support/framework-examples.ts';
import { pack, ROOT, run, userEnv } from './support/packed-project.ts';

/**
 * The README's framework sections, copied into a fresh project as a user would: all four packages
 * built and packed, installed with plain npm outside the workspace beside the framework packages
 * the README names, and each example file run with Node 24 (what `ai` 7 and `@openai/agents` need)
 * against a real server, the person approving with the software passkey. Only the model is
 * scripted, since the examples call OpenAI: the AI SDK example's one model line is swapped for a
 * scripted `MockLanguageModelV4`; the OpenAI Agents example runs unchanged, its default model
 * provider set to the SDK's `ScriptedModel` by a module loaded with `--import`.
 */

const PACKAGES = ['shared', 'agent', 'adapters/ai-sdk', 'adapters/openai-agents'];
/** The README's install lines for the two sections, as written there. */
const FRAMEWORKS = { aiSdk: ['ai@7', '@ai-sdk/openai@4'], openaiAgents: ['@openai/agents@0.20', 'ioredis'] };
/** The one line of the AI SDK example that needs OpenAI, and what the copy has in its place. */
const AI_SDK_MODEL_LINE = "const model = openai('gpt-4.1-mini');";
const SCRIPTED_MODEL_LINE = "const { model } = await import('./ai-sdk-model.mjs');";

/** Every file an `exports` or `imports` map points at (its string values, through every condition). */
function targetsOf(map: unknown): string[] {
  if (typeof map === 'string') return [map];
  return map && typeof map === 'object' ? Object.values(map).flatMap(targetsOf) : [];
}

describe("the README's framework examples, in a fresh project that installs the packed packages", () => {
  let work: string;
  let project: string;
  let harness: Harness;
  let lead: EnrolledUser;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'countersign-framework-examples-'));
    const filters = PACKAGES.flatMap((folder) => ['--filter', `./${folder}`]);
    await run('pnpm', [...filters, 'run', 'build'], { cwd: ROOT });
    const tarballs = join(work, 'tarballs');
    project = join(work, 'project');
    await Promise.all([mkdir(tarballs), mkdir(project)]);
    const packed: string[] = [];
    for (const folder of PACKAGES) packed.push(await pack(folder, tarballs));
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'framework-examples-probe', private: true, type: 'module' }));
    const started = Date.now();
    await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', ...packed, ...FRAMEWORKS.aiSdk, ...FRAMEWORKS.openaiAgents], { cwd: project, env: userEnv({}, NODE_24) });
    console.log(`framework examples: npm install took ${Date.now() - started} ms`);
    for (const file of ['ai-sdk-model.mjs', 'openai-agents-provider.mjs']) await copyFile(join(ROOT, 'test/support/scripted-models', file), join(project, file));

    const port = await freePort();
    harness = await createHarness({ store: 'redis', publicUrl: `http://localhost:${port}`, env: { POLL_INTERVAL: '1' } });
    await harness.listen(port);
    lead = await harness.enrollUser('support_lead');
  }, 300_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    await harness?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs packages whose manifests point only at files the tarball holds, with no workspace-only condition', async () => {
    expect(project.startsWith(ROOT)).toBe(false);
    for (const name of ['shared', 'agent', 'ai-sdk', 'openai-agents']) {
      const folder = join(project, 'node_modules/@countersign', name);
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
      expect({ name, source: JSON.stringify(manifest).includes('countersign-source') }).toEqual({ name, source: false });
      const targets = [manifest.exports, manifest.imports ?? {}].flatMap(targetsOf);
      expect(targets.length).toBeGreaterThan(1);
      expect({ name, missing: targets.filter((target) => !existsSync(join(folder, target))) }).toEqual({ name, missing: [] });
    }
  });

  /** Registers a client for one example; answers the environment the example reads. */
  async function exampleEnv(name: string): Promise<{ clientId: string; env: NodeJS.ProcessEnv }> {
    const { status, body } = await harness.admin('POST', '/clients', { name });
    expect(status).toBe(201);
    const env = userEnv(
      {
        COUNTERSIGN_ISSUER: harness.issuer,
        COUNTERSIGN_CLIENT_ID: body.client_id,
        COUNTERSIGN_CLIENT_SECRET: body.client_secret,
        SCRIPTED_REFUND: JSON.stringify(REFUND),
        OPENAI_API_KEY: 'sk-unused-the-model-is-scripted',
      },
      NODE_24,
    );
    return { clientId: body.client_id, env };
  }

  it("runs the Vercel AI SDK section's example as printed, with only its model scripted: waits, the tool runs once approved, the model gets the real result", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const example = await readFile(join(ROOT, 'examples/sdk/ai-sdk-refund.mjs'), 'utf8');
    expect(readme).toContain(`\`\`\`js\n${example}\`\`\``);
    const lines = example.split('\n');
    expect(lines.filter((line) => line === AI_SDK_MODEL_LINE)).toHaveLength(1);
    await writeFile(join(project, 'refund-agent.mjs'), lines.map((line) => (line === AI_SDK_MODEL_LINE ? SCRIPTED_MODEL_LINE : line)).join('\n'));

    const { clientId, env } = await exampleEnv('AI SDK refund agent');
    const { stdout, auth_req_id } = await approveWhileRunning({ harness, project, person: lead, children }, ['refund-agent.mjs'], clientId, env);
    const outcome = await expectRedeemedRefund(harness, auth_req_id, clientId);
    const printed = stdout.trim().split('\n');
    expect(printed.filter((line) => line.startsWith('refunding'))).toEqual([`refunding 49000 EUR on order 1042 (key refund_1042)`]);
    expect(printed.some((line) => line.includes(auth_req_id) && /Waiting/.test(line))).toBe(true);
    // The model's last turn: the tool's real result, as the AI SDK handed it over.
    expect(JSON.parse(printed.at(-1)!)).toEqual([{ type: 'json', value: expect.objectContaining({ status: 'executed', auth_req_id, result: { refund_id: outcome.reference } }) }]);
  });

  it("runs the OpenAI Agents SDK section's example unchanged, on a scripted default model: waits, the tool runs once approved, the run finishes", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const example = await readFile(join(ROOT, 'examples/sdk/openai-agents-support.ts'), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
    await writeFile(join(project, 'support-agent.ts'), example);

    const { clientId, env } = await exampleEnv('OpenAI Agents support agent');
    // Its own Redis database: the example keeps its pending approvals under the default prefix.
    const redis = new URL(inject('redisUrl'));
    redis.pathname = '/7';
    const { stdout, auth_req_id } = await approveWhileRunning({ harness, project, person: lead, children }, ['--import', './openai-agents-provider.mjs', 'support-agent.ts'], clientId, { ...env, REDIS_URL: redis.href });
    const outcome = await expectRedeemedRefund(harness, auth_req_id, clientId);
    expect(stdout).toMatch(/Waiting for the support lead to approve refund_order on their phone/);
    expect(stdout.match(/^refunding/gm)).toHaveLength(1);
    expect(stdout).toContain("idempotency_key: 'refund_1042'");
    expect(outcome.reference).toBe('re_refund_1042');
    expect(stdout.trim().split('\n').at(-1)).toBe('Refunded.');
  });
});
