import { describe, expect, it } from 'vitest';
import { CountersignError } from '@countersign/shared';
import { createMemoryPendingApprovals } from '../pending/index.ts';
import { approved, args, context, details, setUp } from './create-tool-runner.test-support.ts';

// The runner's own logic against a stubbed agent client (create-tool-runner.test-support.ts): resuming a
// pending approval, and the same call made again, at once or after a restart.

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
