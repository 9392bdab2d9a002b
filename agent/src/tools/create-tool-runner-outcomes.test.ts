import { describe, expect, it } from 'vitest';
import { CountersignError } from '@countersign/shared';
import { args, context, setUp } from './create-tool-runner.test-support.ts';
import { createPingInbox } from './ping-inbox.ts';

// The runner's own logic against a stubbed agent client (create-tool-runner.test-support.ts): how a call
// ends when the person says no, execute or redeem fail, or the wait runs out; and waiting for a ping.

describe('createToolRunner', () => {
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
