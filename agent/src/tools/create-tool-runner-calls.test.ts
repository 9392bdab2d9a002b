import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { createToolRunner, type RunnerClient } from './create-tool-runner.ts';
import { args, context, details, setUp } from './create-tool-runner.test-support.ts';
import { defineTool } from './define-tool.ts';

// The runner's own logic against a stubbed agent client (create-tool-runner.test-support.ts): defining
// tools, and a first call from asking to executing. The real gate is driven end to end in test/guarantees/tool-runner/.

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
});
