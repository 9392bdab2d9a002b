import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import type { AgentClient, TokenPollResult } from '../client/index.ts';
import { CountersignError } from '@countersign/shared';
import type { RedeemResponse, TokenResponse } from '@countersign/shared';
import { createMemoryPendingApprovals, type PendingApprovals } from '../pending/index.ts';
import { createToolRunner, type RunnerClient } from './create-tool-runner.ts';
import { defineTool } from './define-tool.ts';
import { createPingInbox } from './ping-inbox.ts';
import type { WaitStrategy } from './wait-for-approval.ts';

// The runner's own logic against a stubbed agent client. The real gate (a server, a passkey,
// hashes, single use) is driven end to end in test/guarantees/tool-runner.test.ts.

const transfer = z.strictObject({ to: z.string().regex(/^acct_\w+$/), amount_minor: z.number().int().positive(), note: z.string().trim().optional() });

function details(args: z.output<typeof transfer>) {
  return [{ type: 'payment' as const, transaction_id: `t_${args.to}_${args.amount_minor}`, amount_minor: args.amount_minor, currency: 'EUR', payee: { id: args.to, name: 'Payee' }, purpose: 'Transfer' }];
}

function setUp({ wait = 'none' as WaitStrategy, decision = approved() as TokenPollResult, waitTimeoutSeconds = undefined as number | undefined, pending = undefined as PendingApprovals | undefined } = {}) {
  const client = {
    requestApproval: vi.fn<AgentClient['requestApproval']>(async () => ({ auth_req_id: 'req_1', expires_in: 300, interval: 5 })),
    pollToken: vi.fn<AgentClient['pollToken']>(async () => decision),
    waitForDecision: vi.fn<AgentClient['waitForDecision']>(async () => decision as never),
    redeem: vi.fn<AgentClient['redeem']>(async (_token, authorization_details) => redeemed(authorization_details)),
    reportOutcome: vi.fn<AgentClient['reportOutcome']>(async () => {}),
  } satisfies RunnerClient;
  const execute = vi.fn(async (args: z.output<typeof transfer>, { idempotency_key }: { idempotency_key: string }) => {
    expect(Object.isFrozen(args)).toBe(true);
    return { transfer_id: `tr_${idempotency_key}` };
  });
  const send = defineTool({
    name: 'send_money',
    description: 'Sends money.',
    parameters: transfer,
    approval: {
      login_hint: (_args, context: { approver: string }) => context.approver,
      toAuthorizationDetails: details,
      binding_message: (args) => `Send ${args.amount_minor}`,
      reference: (result) => result.transfer_id,
    },
    execute,
  });
  const lookup = vi.fn(async (args: { to: string }, { context }: { context: { approver: string } }) => ({ owner: `owner of ${args.to}`, asked_by: context.approver }));
  const balance = defineTool({ name: 'get_balance', description: 'Reads a balance.', parameters: z.strictObject({ to: z.string() }), execute: lookup });
  const runner = createToolRunner({ client, tools: [balance, send], wait, ...(waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds }), ...(pending ? { pending } : {}) });
  return { client, execute, lookup, runner };
}

const context = { approver: 'alice' };
const args = { to: 'acct_7', amount_minor: 500 };

function approved(): TokenPollResult {
  const token: TokenResponse = { access_token: 'at_1', token_type: 'Bearer', expires_in: 600, id_token: 'idt', authorization_details: [] as never };
  return { status: 'approved', token };
}

function redeemed(authorization_details: RedeemResponse['authorization_details']): RedeemResponse {
  return { status: 'redeemed', redemption_id: 'red_1', idempotency_key: 'idem_1', authorization_details, redeemed_at: '2025-01-01T00:00:00.000Z' };
}

describe('defineTool', () => {
  it('refuses a name a model API would refuse and an approval without its functions', () => {
    const base = { description: 'd', parameters: z.object({}), execute: () => 1 };
    expect(() => defineTool({ ...base, name: 'send money' })).toThrow(TypeError);
    expect(() => defineTool({ ...base, name: 'x', approval: { login_hint: 'a' } as never })).toThrow(/toAuthorizationDetails/);
    expect(() => defineTool({ ...base, name: 'x', approval: { toAuthorizationDetails: () => [] as never } as never })).toThrow(/login_hint/);
  });

  it('freezes the definition, so no one can unmark a gated tool', () => {
    const { runner } = setUp();
    const tool = defineTool({ name: 'x', description: 'd', parameters: z.object({}), approval: { login_hint: 'a', toAuthorizationDetails: () => [] as never }, execute: () => 1 });
    expect(() => Object.assign(tool, { approval: undefined })).toThrow(TypeError);
    expect(runner.listGatedTools().map((t) => t.name)).toEqual(['send_money']);
  });
});

describe('createToolRunner', () => {
  it('lists every tool with its JSON Schema, and the gated ones apart', () => {
    const { runner } = setUp();
    expect(runner.listTools().map(({ name, requiresApproval }) => ({ name, requiresApproval }))).toEqual([
      { name: 'get_balance', requiresApproval: false },
      { name: 'send_money', requiresApproval: true },
    ]);
    expect(runner.listGatedTools()[0]?.parameters).toMatchObject({ type: 'object', required: ['to', 'amount_minor'], additionalProperties: false });
  });

  it('refuses two tools of one name', () => {
    const tool = defineTool({ name: 'x', description: 'd', parameters: z.object({}), execute: () => 1 });
    expect(() => createToolRunner({ client: {} as RunnerClient, tools: [tool, tool], wait: 'none' })).toThrow(/two tools/);
  });

  it('runs an ungated tool with its validated arguments and the context, asking no one', async () => {
    const { client, lookup, runner } = setUp();
    expect(await runner.call('get_balance', { to: 'acct_7' }, context)).toEqual({ status: 'executed', tool: 'get_balance', result: { owner: 'owner of acct_7', asked_by: 'alice' } });
    expect(lookup).toHaveBeenCalledOnce();
    expect(client.requestApproval).not.toHaveBeenCalled();
  });

  it('refuses malformed arguments and an unknown tool before asking anyone', async () => {
    const { client, execute, runner } = setUp();
    expect(await runner.call('send_money', { ...args, amount_minor: 1.5 }, context)).toMatchObject({ status: 'refused', error: 'invalid_request', error_description: /amount_minor/ });
    expect(await runner.call('send_money', { ...args, payee: 'acct_evil' }, context)).toMatchObject({ status: 'refused', error: 'invalid_request' });
    expect(await runner.call('send_everything', args, context)).toMatchObject({ status: 'refused', error: 'invalid_request', error_description: /no tool/ });
    expect(client.requestApproval).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });

  it("asks for the exact action and ends approval_pending with wait 'none'; nothing runs", async () => {
    const { client, execute, runner } = setUp();
    const result = await runner.call('send_money', { ...args, note: '  hi ' }, context);
    expect(result).toEqual({ status: 'approval_pending', tool: 'send_money', auth_req_id: 'req_1', expires_in: 300, interval: 5 });
    expect(client.requestApproval).toHaveBeenCalledWith({ login_hint: 'alice', authorization_details: details(args), binding_message: 'Send 500' });
    expect(client.pollToken).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });

  it('carries the binding_code of number matching in approval_pending, on the call and on every resume', async () => {
    const { client, runner } = setUp({ decision: { status: 'pending' } });
    client.requestApproval.mockResolvedValueOnce({ auth_req_id: 'req_1', expires_in: 300, interval: 5, binding_code: '42' });
    expect(await runner.call('send_money', args, context)).toEqual({ status: 'approval_pending', tool: 'send_money', auth_req_id: 'req_1', expires_in: 300, interval: 5, binding_code: '42' });
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'approval_pending', binding_code: '42' });
  });

  it("redeems with the tool's own reading of the records its preconditions name, read after the approval", async () => {
    const { client } = setUp({ wait: 'poll' });
    const versions = vi.fn(async (input: { to: string }) => ({ [`account:${input.to}`]: '7' }));
    const tool = defineTool({
      name: 'close_account',
      description: 'Closes an account.',
      parameters: z.strictObject({ to: z.string() }),
      approval: { login_hint: 'alice', toAuthorizationDetails: (input) => details({ to: input.to, amount_minor: 1 }), currentVersions: versions },
      execute: () => 'closed',
    });
    const gated = createToolRunner({ client, tools: [tool], wait: 'poll' });
    expect(await gated.call('close_account', { to: 'acct_7' })).toMatchObject({ status: 'executed', result: 'closed' });
    expect(versions).toHaveBeenCalledOnce();
    expect(versions.mock.invocationCallOrder[0]).toBeGreaterThan(client.waitForDecision.mock.invocationCallOrder[0]!);
    expect(client.redeem).toHaveBeenCalledWith('at_1', details({ to: 'acct_7', amount_minor: 1 }), { current_versions: { 'account:acct_7': '7' } });
  });

  it('once approved, redeems the action rebuilt from the same arguments, executes once with the idempotency key and reports', async () => {
    const { client, execute, runner } = setUp({ wait: 'poll' });
    const result = await runner.call('send_money', args, context);
    expect(client.waitForDecision).toHaveBeenCalledWith('req_1', { interval: 5 });
    expect(client.redeem).toHaveBeenCalledWith('at_1', details(args));
    expect(execute).toHaveBeenCalledOnce();
    expect(execute.mock.calls[0]?.[0]).toEqual(args);
    expect(execute.mock.calls[0]?.[1]).toMatchObject({ idempotency_key: 'idem_1', context, redemption: { redemption_id: 'red_1' } });
    expect(client.reportOutcome).toHaveBeenCalledWith('red_1', { status: 'succeeded', reference: 'tr_idem_1' });
    expect(result).toEqual({
      status: 'executed',
      tool: 'send_money',
      result: { transfer_id: 'tr_idem_1' },
      outcome: { redemption_id: 'red_1', status: 'succeeded', reference: 'tr_idem_1', reported: true },
      auth_req_id: 'req_1',
    });
  });

  it.each(['denied', 'expired'] as const)('returns %s without redeeming or executing', async (status) => {
    const { client, execute, runner } = setUp({ wait: 'poll', decision: { status } });
    expect(await runner.call('send_money', args, context)).toEqual({ status, tool: 'send_money', auth_req_id: 'req_1' });
    expect(client.redeem).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'refused', error: 'invalid_grant' });
  });

  it('reports a failed outcome with a displayable reason when execute throws', async () => {
    const { client, execute, runner } = setUp({ wait: 'poll' });
    execute.mockRejectedValueOnce(new Error('bank said:\nno\u202e'));
    expect(await runner.call('send_money', args, context)).toEqual({
      status: 'failed',
      tool: 'send_money',
      reason: 'bank said: no',
      outcome: { redemption_id: 'red_1', status: 'failed', reason: 'bank said: no', reported: true },
      auth_req_id: 'req_1',
    });
    expect(client.reportOutcome).toHaveBeenCalledWith('red_1', { status: 'failed', reason: 'bank said: no' });
  });

  it('still returns what ran when reporting the outcome fails', async () => {
    const { client, runner } = setUp({ wait: 'poll' });
    client.reportOutcome.mockRejectedValueOnce(new CountersignError('server_error', 'down'));
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'executed', outcome: { status: 'succeeded', reported: false } });
  });

  it('ends approval_pending when a poll wait times out', async () => {
    const { client, execute, runner } = setUp({ wait: 'poll', waitTimeoutSeconds: 30 });
    client.waitForDecision.mockRejectedValueOnce(new DOMException('no decision', 'TimeoutError'));
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'approval_pending', auth_req_id: 'req_1' });
    expect(client.waitForDecision).toHaveBeenCalledWith('req_1', { interval: 5, timeoutSeconds: 30 });
    expect(execute).not.toHaveBeenCalled();
  });

  it('lets a 5xx of redeem propagate, executes nothing, and keeps the token for a resume', async () => {
    const { client, execute, runner } = setUp({ wait: 'poll' });
    client.redeem.mockRejectedValueOnce(new CountersignError('server_error', 'boom'));
    await expect(runner.call('send_money', args, context)).rejects.toMatchObject({ code: 'server_error' });
    expect(execute).not.toHaveBeenCalled();
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'executed' });
    expect(client.pollToken).not.toHaveBeenCalled(); // the token is issued once; the runner kept it
    expect(execute).toHaveBeenCalledOnce();
  });
});

describe('resume', () => {
  it('refuses other arguments (approval_mismatch) without executing, and keeps the approval for the approved ones', async () => {
    const { client, execute, runner } = setUp();
    await runner.call('send_money', args, context);
    client.redeem.mockRejectedValueOnce(new CountersignError('approval_mismatch', 'the action differs from the approved one'));
    expect(await runner.resume('req_1', { ...args, amount_minor: 501 }, context)).toEqual({
      status: 'refused',
      tool: 'send_money',
      error: 'approval_mismatch',
      error_description: 'the action differs from the approved one',
      auth_req_id: 'req_1',
    });
    expect(client.redeem).toHaveBeenLastCalledWith('at_1', details({ ...args, amount_minor: 501 }));
    expect(execute).not.toHaveBeenCalled();
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'executed' });
    expect(client.pollToken).toHaveBeenCalledOnce();
    expect(execute).toHaveBeenCalledOnce();
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'refused', error: 'invalid_grant' });
    expect(execute).toHaveBeenCalledOnce();
  });

  it('stays approval_pending while undecided, and raises the interval after slow_down', async () => {
    const { client, runner } = setUp({ decision: { status: 'slow_down' } });
    await runner.call('send_money', args, context);
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'approval_pending', interval: 10 });
    client.pollToken.mockResolvedValueOnce({ status: 'pending' });
    expect(await runner.resume('req_1', args, context)).toMatchObject({ status: 'approval_pending', interval: 10 });
  });

  it('refuses an auth_req_id it never asked for', async () => {
    const { client, runner } = setUp();
    expect(await runner.resume('req_other', args, context)).toEqual({
      status: 'refused',
      tool: '',
      error: 'invalid_grant',
      error_description: 'this runner has no pending approval for that auth_req_id',
      auth_req_id: 'req_other',
    });
    expect(client.pollToken).not.toHaveBeenCalled();
  });

  it('polls once for two resumes at the same time, and executes once', async () => {
    const { client, execute, runner } = setUp();
    await runner.call('send_money', args, context);
    const [a, b] = await Promise.all([runner.resume('req_1', args, context), runner.resume('req_1', args, context)]);
    expect([a.status, b.status].sort()).toEqual(['executed', 'refused']);
    expect(client.pollToken).toHaveBeenCalledOnce();
    expect(execute).toHaveBeenCalledOnce();
  });
});

describe('the same call made again', () => {
  it('resumes the waiting approval instead of asking the person a second time', async () => {
    const { client, execute, runner } = setUp({ decision: { status: 'pending' } });
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'approval_pending', auth_req_id: 'req_1' });
    expect(await runner.call('send_money', { amount_minor: 500, to: 'acct_7' }, context)).toMatchObject({ status: 'approval_pending', auth_req_id: 'req_1' });
    expect(client.requestApproval).toHaveBeenCalledOnce();
    expect(client.pollToken).toHaveBeenCalledOnce(); // the second call read the decision once
    client.pollToken.mockResolvedValueOnce(approved());
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'executed', auth_req_id: 'req_1' });
    expect(client.requestApproval).toHaveBeenCalledOnce();
    expect(execute).toHaveBeenCalledOnce();
    // Spent: the next identical call is a new action and asks again.
    await runner.call('send_money', args, context);
    expect(client.requestApproval).toHaveBeenCalledTimes(2);
  });

  it('asks once for the same call made twice at once, and separately for other arguments', async () => {
    const { client, runner } = setUp({ decision: { status: 'pending' } });
    client.requestApproval.mockImplementation(async (request) => ({ auth_req_id: `req_${request.binding_message}`, expires_in: 300, interval: 5 }));
    const results = await Promise.all([runner.call('send_money', args, context), runner.call('send_money', args, context), runner.call('send_money', { ...args, amount_minor: 700 }, context)]);
    expect(results.map((result) => result.status === 'approval_pending' && result.auth_req_id)).toEqual(['req_Send 500', 'req_Send 500', 'req_Send 700']);
    expect(client.requestApproval).toHaveBeenCalledTimes(2);
  });

  it('is found by a new runner on the same store, as after a restart, and runs once', async () => {
    const pending = createMemoryPendingApprovals();
    const before = setUp({ decision: { status: 'pending' }, pending });
    expect(await before.runner.call('send_money', args, context)).toMatchObject({ status: 'approval_pending', auth_req_id: 'req_1' });
    const after = setUp({ pending });
    expect(await after.runner.call('send_money', args, context)).toMatchObject({ status: 'executed', auth_req_id: 'req_1' });
    expect(after.client.requestApproval).not.toHaveBeenCalled();
    expect(after.execute).toHaveBeenCalledOnce();
    expect(before.execute).not.toHaveBeenCalled();
    expect(await pending.list()).toEqual([]);
  });

  it("keeps an adapter's run_state through the runner's own updates", async () => {
    const { client, runner } = setUp({ decision: { status: 'slow_down' } });
    await runner.call('send_money', args, context);
    const key = await runner.callKey('send_money', args);
    const record = await runner.pending.get(key);
    expect(record).toMatchObject({ auth_req_id: 'req_1', tool: 'send_money', interval: 5 });
    await runner.pending.put({ ...record!, run_state: 'serialized run' });
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'approval_pending', interval: 10 });
    expect(await runner.pending.getByRequest('req_1')).toMatchObject({ interval: 10, run_state: 'serialized run' });
    client.pollToken.mockResolvedValueOnce(approved());
    client.redeem.mockRejectedValueOnce(new CountersignError('server_error', 'boom'));
    await expect(runner.call('send_money', args, context)).rejects.toMatchObject({ code: 'server_error' });
    expect(await runner.pending.get(key)).toMatchObject({ access_token: 'at_1', run_state: 'serialized run' });
  });
});

describe('ping', () => {
  it('sends the inbox token, waits for the ping, then reads the decision with one poll', async () => {
    const inbox = createPingInbox();
    const { client, execute, runner } = setUp({ wait: { ping: inbox } });
    client.requestApproval.mockImplementationOnce(async () => {
      setTimeout(() => void inbox.handle(new Request('http://agent/cb', { method: 'POST', headers: { authorization: `Bearer ${inbox.client_notification_token}` }, body: '{"auth_req_id":"req_1"}' })), 5);
      return { auth_req_id: 'req_1', expires_in: 300, interval: 5 };
    });
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'executed' });
    expect(client.requestApproval.mock.calls[0]?.[0]).toMatchObject({ client_notification_token: inbox.client_notification_token });
    expect(client.pollToken).toHaveBeenCalledOnce();
    expect(client.waitForDecision).not.toHaveBeenCalled();
    expect(execute).toHaveBeenCalledOnce();
  });

  it('polls once at the deadline when no ping comes, and ends approval_pending if still undecided', async () => {
    const inbox = createPingInbox();
    const { client, execute, runner } = setUp({ wait: { ping: inbox }, waitTimeoutSeconds: 0.01, decision: { status: 'pending' } });
    expect(await runner.call('send_money', args, context)).toMatchObject({ status: 'approval_pending' });
    expect(client.pollToken).toHaveBeenCalledOnce();
    expect(execute).not.toHaveBeenCalled();
  });
});
