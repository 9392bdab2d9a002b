import { createAgentClient, type AgentClient } from '@countersign/agent';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const CLI = `${ROOT}server/src/operator/cli.ts`;

/** What one run of the CLI did. */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The operator's command-line tool, run as a child process (`tsx server/src/operator/cli.ts`)
 * against a real server listening on a socket. Its stdout is a pipe here, so plain output is the
 * tab-separated form scripts read.
 */
// Each test starts one or more Node processes: generous limits, for a loaded CI machine.
describe('the operator CLI against a running server', { timeout: 90_000 }, () => {
  let harness: Harness;
  let url: string;
  let agent: AgentClient;
  let bob: EnrolledUser;

  beforeAll(async () => {
    const port = await freePort();
    harness = await createHarness({ publicUrl: `http://localhost:${port}` });
    await harness.listen(port);
    // 127.0.0.1: the harness listens on IPv4 loopback only.
    url = `http://127.0.0.1:${port}`;
    bob = await harness.enrollUser('bob');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Runs the CLI to its end. */
  function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
    const child = start(args, env);
    return child.done;
  }

  /**
   * Starts the CLI; `done` settles when it exits. `direct` runs it as `node --import tsx` rather
   * than through tsx's launcher, which runs the script in a child process of its own: a signal
   * sent to the launcher reaches the CLI only relayed, while Ctrl-C in a terminal reaches both.
   */
  function start(args: string[], env: Record<string, string | undefined> = {}, direct = false) {
    const child = spawn(direct ? process.execPath : TSX, [...(direct ? ['--import', 'tsx'] : []), CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, COUNTERSIGN_URL: url, ADMIN_TOKEN: harness.adminToken, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { code: null, stdout: '', stderr: '' };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
    const done = new Promise<Run>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the CLI did not finish: ${args.join(' ')}\n${run.stdout}\n${run.stderr}`));
      }, 60_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        run.code = code;
        resolve(run);
      });
    });
    return { child, run, done };
  }

  /** `key<TAB>value` lines as an object. */
  function fields(stdout: string): Record<string, string> {
    return Object.fromEntries(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t') as [string, string]),
    );
  }

  it('creates a client and prints its id and secret once, and the secret works', async () => {
    const run = await cli(['client', 'create', '--name', 'Billing agent', '--tenant', 'default']);
    expect(run.code).toBe(0);
    const client = fields(run.stdout);
    expect(client).toMatchObject({ client_id: expect.stringMatching(/^cli_/), client_secret: expect.any(String), name: 'Billing agent', tenant: 'default', mode: 'poll' });
    expect(run.stderr).toContain('shown only this once');
    // The credentials authenticate: an unknown auth_req_id is invalid_grant, not invalid_client.
    const token = await harness.call('POST', '/token', {
      body: 'grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=unknown_request_id_0000',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    });
    expect(token.body.error).toBe('invalid_grant');
  });

  it('prints the new client as JSON with --json', async () => {
    const run = await cli(['client', 'create', '--name', 'Ping agent', '--mode', 'ping', '--endpoint', 'http://localhost:9/notify', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ client_id: expect.any(String), client_secret: expect.any(String), token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://localhost:9/notify' });
  });

  it('refuses a ping client without an endpoint before calling the server', async () => {
    const run = await cli(['client', 'create', '--name', 'Ping agent', '--mode', 'ping']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('needs --endpoint');
  });

  it('adds a user, and says so when the user already exists', async () => {
    const first = await cli(['user', 'add', 'alice', '--name', 'Alice Martin']);
    expect(first.code).toBe(0);
    expect(fields(first.stdout)).toEqual({ sub: 'alice', tenant: 'default', display_name: 'Alice Martin' });
    expect(first.stderr).toContain('Added alice');
    const again = await cli(['user', 'add', 'alice']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already existed');
    // Asking for another name on an existing user is not silently dropped.
    const renamed = await cli(['user', 'add', 'alice', '--name', 'Alicia Other']);
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain('its display name stays "Alice Martin", not "Alicia Other"');
    expect((await cli(['user', 'add', 'alice', '--name', 'Alice Martin'])).code).toBe(0);
  });

  it('prints a working enrollment link on stdout, and no QR code for a localhost link but why not', async () => {
    await cli(['user', 'add', 'carol']);
    const run = await cli(['enroll', 'carol']);
    expect(run.code).toBe(0);
    const link = run.stdout.trim();
    expect(link).toMatch(new RegExp(`^${harness.issuer}/#/enroll/[A-Za-z0-9_-]+$`));
    // The harness serves http://localhost:<port>: a phone that scanned it would open itself.
    expect(run.stderr).not.toMatch(/[█▀▄]/u);
    expect(run.stderr).toContain('No QR code: this link is on localhost, which a phone cannot open');
    expect(run.stderr).toContain('works once');
    const code = link.split('/').pop()!;
    const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    expect(options.status).toBe(200);
  });

  it('leaves the QR code out with --no-qr, and answers JSON with --json', async () => {
    const plain = await cli(['enroll', 'carol', '--no-qr']);
    expect(plain.stderr).not.toMatch(/[█▀▄]/u);
    const json = await cli(['enroll', 'carol', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ enrollment_url: expect.stringContaining('/#/enroll/'), expires_in: expect.any(Number) });
    expect(json.stderr).toBe('');
  });

  it('refuses to enroll an unknown user', async () => {
    const run = await cli(['enroll', 'nobody']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: not_found');
  });

  it('lists pending requests, soonest deadline first, and no longer lists a decided one', async () => {
    const later = await agent.requestApproval({ login_hint: 'bob', authorization_details: payment({ transaction_id: 'txn_later' }), binding_message: 'Order 1042', requested_expiry: 300 });
    const sooner = await agent.requestApproval({ login_hint: 'bob', authorization_details: payment({ transaction_id: 'txn_sooner', amount_minor: 1250 }), requested_expiry: 120 });

    const run = await cli(['requests', 'pending']);
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    const ids = rows.map((row) => row[0]);
    expect(ids.indexOf(sooner.auth_req_id)).toBeLessThan(ids.indexOf(later.auth_req_id));
    const row = rows.find((candidate) => candidate[0] === later.auth_req_id)!;
    expect(row).toEqual([later.auth_req_id, 'bob', 'Support agent', expect.stringMatching(/^\d+$/), 'Order 1042', 'EUR 490.00 to ACME Ltd']);
    expect(Number(row[3])).toBeGreaterThan(250);

    const json = JSON.parse((await cli(['requests', 'pending', '--json'])).stdout);
    expect(json.truncated).toBe(false);
    expect(json.requests.find((request: { auth_req_id: string }) => request.auth_req_id === sooner.auth_req_id)).toMatchObject({ sub: 'bob', client_name: 'Support agent', summary: 'EUR 12.50 to ACME Ltd', binding_message: null });

    expect((await harness.decide(bob, sooner.auth_req_id, 'deny')).status).toBe(200);
    const after = await cli(['requests', 'pending']);
    expect(after.stdout).not.toContain(sooner.auth_req_id);
    expect(after.stdout).toContain(later.auth_req_id);
  });

  it('lists nothing for another tenant', async () => {
    const run = await cli(['requests', 'pending', '--tenant', 'elsewhere']);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain('No pending requests');
  });

  it('follows the audit trail until the request is settled', async () => {
    const asked = await agent.requestApproval({ login_hint: 'bob', authorization_details: payment({ transaction_id: 'txn_follow' }) });
    const follow = start(['audit', 'follow', '--auth-req-id', asked.auth_req_id, '--interval', '0.2', '--until-settled']);
    await expect.poll(() => follow.run.stdout + follow.run.stderr, { timeout: 30_000 }).toContain('proposed');
    expect((await harness.decide(bob, asked.auth_req_id, 'deny')).status).toBe(200);
    const run = await follow.done;
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    const types = lines.map((line) => line[1]);
    expect(types[0]).toBe('proposed');
    expect(types).toEqual(expect.arrayContaining(['viewed', 'denied']));
    expect(types.at(-1)).toBe('denied');
    for (const line of lines) expect(line[0]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(lines[0]).toEqual(expect.arrayContaining(['channel=agent', 'sub=bob']));
  });

  it('follows as one JSON object per line with --json, until Ctrl-C', async () => {
    const asked = await agent.requestApproval({ login_hint: 'bob', authorization_details: payment({ transaction_id: 'txn_follow_json' }) });
    const follow = start(['audit', 'follow', '--auth-req-id', asked.auth_req_id, '--interval', '0.2', '--json'], {}, true);
    await expect.poll(() => follow.run.stdout + follow.run.stderr, { timeout: 30_000 }).toContain('"proposed"');
    follow.child.kill('SIGINT');
    const run = await follow.done;
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: 'proposed', auth_req_id: asked.auth_req_id, sub: 'bob' });
  });

  it('refuses to follow a request that does not exist', async () => {
    const run = await cli(['audit', 'follow', '--auth-req-id', 'no_such_request_0000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: not_found');
  });

  it("exits 1 with the server's code for a wrong token, and when the server is not there", async () => {
    const wrong = await cli(['requests', 'pending'], { ADMIN_TOKEN: 'not-the-admin-token-0123456789' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: invalid_token');
    const port = await freePort();
    const away = await cli(['requests', 'pending'], { COUNTERSIGN_URL: `http://127.0.0.1:${port}` });
    expect(away.code).toBe(1);
    expect(away.stderr).toContain("Can't reach Countersign");
  });

  it('exits 2 with the usage for a mistake in the command line', async () => {
    expect(await cli([])).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage:') });
    expect(await cli(['frobnicate'])).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command') });
    expect(await cli(['user', 'add', 'dave', '--colour', 'red'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--colour') });
    expect(await cli(['requests', 'pending'], { ADMIN_TOKEN: '' })).toMatchObject({ code: 2, stderr: expect.stringContaining('ADMIN_TOKEN') });
    expect(await cli(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('client create') });
  });
});

/** The admin endpoint behind `requests pending`, on its own. */
describe('GET /api/admin/requests?state=pending', () => {
  let harness: Harness;
  let agent: AgentClient;

  beforeAll(async () => {
    harness = await createHarness();
    await harness.enrollUser('erin');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterAll(() => harness?.close());

  it('lists only state=pending, with a bounded limit', async () => {
    expect((await harness.admin('GET', '/requests')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=approved')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&limit=0')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&limit=501')).body.error).toBe('invalid_request');
    expect((await harness.admin('GET', '/requests?state=pending&tenant=Bad{tenant}')).body.error).toBe('invalid_request');
    expect((await harness.call('GET', '/api/admin/requests?state=pending')).status).toBe(401);
  });

  it('settles a request past its deadline instead of listing it', async () => {
    const asked = await agent.requestApproval({ login_hint: 'erin', authorization_details: payment({ transaction_id: 'txn_due' }), requested_expiry: 30 });
    const kept = await agent.requestApproval({ login_hint: 'erin', authorization_details: payment({ transaction_id: 'txn_kept' }), requested_expiry: 300 });
    harness.clock.advance(31);
    const list = await harness.admin('GET', '/requests?state=pending&limit=1');
    expect(list.body.requests.map((request: { auth_req_id: string }) => request.auth_req_id)).toEqual([kept.auth_req_id]);
    expect(list.body.truncated).toBe(false);
    const audit = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.map((event: { type: string }) => event.type)).toContain('expired');
  });
});
