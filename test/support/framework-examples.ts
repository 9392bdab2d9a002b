import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import type { EnrolledUser, Harness } from './harness.ts';

// What test/framework-examples.test.ts does with each README example it runs: approve its one request
// while it runs, then check the server redeemed the refund once.

/** The Node the examples run on: the one running the tests (24), what `ai` 7 and `@openai/agents` need. */
export const NODE_24 = process.execPath;
/** What the scripted models ask for: the README's refund of order 1042. */
export const REFUND = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Arrived broken' };

/** The installed project the examples run in, the server, the person who approves, and the children to kill after. */
export interface RunningExample {
  harness: Harness;
  project: string;
  person: EnrolledUser;
  children: ChildProcess[];
}

/**
 * Runs `args` in the project while the person waits for the client's one request on the phone,
 * checks the example printed nothing of the refund before the approval, approves it, and answers
 * the example's output and the request.
 */
export async function approveWhileRunning(example: RunningExample, args: string[], clientId: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; auth_req_id: string }> {
  const child = spawn(NODE_24, args, { cwd: example.project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  example.children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.on('close', resolveExit));
  const mine = async () => ((await example.harness.admin('GET', '/requests?state=pending')).body.requests as { auth_req_id: string; client_id: string }[]).filter((request) => request.client_id === clientId);
  await expect.poll(mine, { timeout: 30_000, interval: 100 }).toHaveLength(1);
  const [asked] = await mine();
  expect(stdout).not.toMatch(/refunding/);
  expect((await example.harness.decide(example.person, asked!.auth_req_id, 'approve')).status).toBe(200);
  expect({ code: await exited, stderr: stderr.replace(/^\(node:\d+\) ExperimentalWarning.*\n(\(Use .*\n)?/gm, '') }).toEqual({ code: 0, stderr: '' });
  return { stdout, auth_req_id: asked!.auth_req_id };
}

/** The server's record of the request: redeemed once against the refund, its outcome reported. */
export async function expectRedeemedRefund(harness: Harness, auth_req_id: string, clientId: string): Promise<{ reference?: string }> {
  const stored = (await harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
  expect(stored).toMatchObject({
    client_id: clientId,
    state: 'redeemed',
    authorization_details: [{ type: 'payment', transaction_id: 'refund_1042', amount_minor: REFUND.amount_minor, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: REFUND.reason }],
    outcome: { status: 'succeeded' },
  });
  const audit = (await harness.admin('GET', `/audit?auth_req_id=${encodeURIComponent(auth_req_id)}`)).body.events as { type: string }[];
  expect(audit.filter((event) => event.type === 'redeemed')).toHaveLength(1);
  return stored.outcome;
}
