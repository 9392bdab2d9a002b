import { describe, expect, it } from 'vitest';
import { payment } from '../support/payment.ts';
import { agent, bob, cliSuite, harness } from './support.ts';

/** `requests pending` and `audit follow`: what waits for a decision, and a request's audit trail as it happens. */
// Each test starts one or more Node processes: generous limits, for a loaded CI machine.
describe('the operator CLI against a running server', { timeout: 90_000 }, () => {
  const { cli, start } = cliSuite();

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
});
