import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { runProcess } from './support/operator-process.ts';
import { MACHINE_NODE, pack, ROOT, run, userEnv } from './support/packed-project.ts';

/**
 * `countersign-admin` as an operator installs it: `@countersign/admin-cli` built (plain
 * JavaScript, from `server/src/operator`), packed with pnpm, installed with plain npm into an
 * empty project in the system's temporary folder, outside the repository, and run there through
 * the `bin` link npm made, by the machine's own Node (20 here) without tsx and without the
 * workspace's `countersign-source` condition, against a server listening on a port.
 */
describe('the installed countersign-admin, outside the repository', { timeout: 120_000 }, () => {
  let work: string;
  let project: string;
  let harness: Harness;
  let url: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'countersign-admin-cli-'));
    // Built now, so the tarball holds what the source says even when `pnpm build` did not run first.
    await run('pnpm', ['--filter', './operator-cli', 'run', 'build'], { cwd: ROOT });
    const tarballs = join(work, 'tarballs');
    project = join(work, 'ops');
    await Promise.all([mkdir(tarballs), mkdir(project)]);
    const tarball = await pack('operator-cli', tarballs);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'admin-cli-probe', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: project, env: userEnv() });

    const port = await freePort();
    // Served on 127.0.0.1, under a public name: `enroll` draws a QR code only for a link a phone can open.
    harness = await createHarness({ publicUrl: `http://countersign.test:${port}` });
    await harness.listen(port);
    url = `http://127.0.0.1:${port}`;
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Runs the installed bin from the project folder, with the machine's Node first on PATH. */
  function admin(args: string[]) {
    return runProcess(join(project, 'node_modules/.bin/countersign-admin'), args, { cwd: project, env: { PATH: userEnv().PATH!, COUNTERSIGN_URL: url, ADMIN_TOKEN: harness.adminToken } });
  }

  it("ships only built JavaScript, and runs on the machine's Node", async () => {
    const installed = join(project, 'node_modules/@countersign/admin-cli');
    const files = await readdir(installed, { recursive: true });
    expect(files).toContain(join('dist', 'cli.js'));
    expect(files.filter((file) => file.endsWith('.ts'))).toEqual([]);
    const cli = await readFile(join(installed, 'dist/cli.js'), 'utf8');
    expect(cli.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(cli).not.toMatch(/from '[^']+\.ts'/);
    const help = await admin(['--help']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('device revoke <sub> <device_id>') });
    console.log(`admin CLI package test: runs on ${MACHINE_NODE} ${(await run(MACHINE_NODE, ['--version'], { cwd: project })).trim()}`);
  });

  it('creates, lists, disables and rotates a client, lists users and prints an enrollment QR code', async () => {
    const created = await admin(['client', 'create', '--name', 'Installed agent', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    const listed = await admin(['clients', 'list', '--q', 'installed']);
    expect(listed.stdout.trimEnd().split('\t').slice(0, 4)).toEqual([client.client_id, 'Installed agent', 'poll', 'active']);
    expect((await admin(['client', 'disable', client.client_id])).code).toBe(0);
    expect((await harness.admin('GET', `/clients/${client.client_id}`)).body.disabled).toBe(true);
    const rotated = JSON.parse((await admin(['client', 'rotate-secret', client.client_id, '--json'])).stdout);
    expect(rotated.client_secret).not.toBe(client.client_secret);

    expect((await admin(['user', 'add', 'installed_user', '--name', 'Ines Installed'])).code).toBe(0);
    expect((await admin(['users', 'list', '--q', 'ines'])).stdout.split('\t').slice(0, 2)).toEqual(['installed_user', 'Ines Installed']);
    // qrcode-terminal, the package's one dependency, came with it.
    const enroll = await admin(['enroll', 'installed_user']);
    expect(enroll.code, enroll.stderr).toBe(0);
    expect(enroll.stdout.trim()).toMatch(/\/#\/enroll\/[A-Za-z0-9_-]+$/);
    expect(enroll.stderr).toMatch(/[█▀▄]/u);
  });

  it("exits 1 with the server's error code for a wrong token", async () => {
    const env = userEnv();
    const wrong = await runProcess(join(project, 'node_modules/.bin/countersign-admin'), ['users', 'list'], { cwd: project, env: { PATH: env.PATH!, COUNTERSIGN_URL: url, ADMIN_TOKEN: 'not-the-admin-token-0123456789' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: invalid_token');
  });
});
