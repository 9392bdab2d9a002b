import { describe, expect, it, vi } from 'vitest';
import { SCENARIOS, session, useGate } from './support.ts';

// `authorize`: the person approves in one step and the tool runs in a later one, exactly once.

describe('the tool runner, gated by Countersign', () => {
  const gate = useGate();

  describe('authorize: approved in one step, run in another', () => {
    const { args } = SCENARIOS.refund_order!;

    it('never runs the tool and never redeems; a later call with the same arguments runs once without asking again', async () => {
      gate.onAsk = 'approve';
      const runner = gate.runnerWith('poll');
      const requestApproval = vi.spyOn(gate.agent, 'requestApproval');
      const redeem = vi.spyOn(gate.agent, 'redeem');
      const answer = await runner.authorize('refund_order', args, session);
      expect(answer).toEqual({ status: 'approved', tool: 'refund_order', auth_req_id: expect.any(String) });
      if (answer.status !== 'approved') throw new Error('not approved');
      expect(gate.executes.refund_order).toHaveBeenCalledTimes(0);
      expect(redeem).not.toHaveBeenCalled();
      expect(gate.world.payments.refunds).toEqual([]);
      expect((await gate.agent.getRequest(answer.auth_req_id)).state).toBe('approved');
      // Authorizing again finds the held token: no second request, still nothing run.
      expect(await runner.authorize('refund_order', args, session)).toEqual(answer);

      gate.onAsk = undefined;
      const result = await runner.call('refund_order', args, session);
      expect(result).toMatchObject({ status: 'executed', auth_req_id: answer.auth_req_id, outcome: { status: 'succeeded' } });
      expect(requestApproval).toHaveBeenCalledTimes(1);
      expect(redeem).toHaveBeenCalledTimes(1);
      expect(gate.executes.refund_order).toHaveBeenCalledTimes(1);
      expect(gate.executes.refund_order!.mock.calls[0]?.[0]).toEqual(args);
    });

    it('asks anew for other arguments, and leaves the first approval unspent', async () => {
      // Store credit: other customers are other transactions (a refund of order 1042 is one, whatever the amount).
      const credit = SCENARIOS.issue_store_credit!;
      gate.onAsk = 'approve';
      const runner = gate.runnerWith('poll');
      const requestApproval = vi.spyOn(gate.agent, 'requestApproval');
      const first = await runner.authorize('issue_store_credit', credit.args, session);
      expect(first).toMatchObject({ status: 'approved' });
      gate.onAsk = undefined;
      const other = await runner.authorize('issue_store_credit', credit.otherArgs, session, { wait: 'none' });
      expect(other).toMatchObject({ status: 'approval_pending', tool: 'issue_store_credit', expires_in: 300 });
      expect(other.auth_req_id).not.toBe(first.auth_req_id);
      expect(requestApproval).toHaveBeenCalledTimes(2);
      expect(gate.executes.issue_store_credit).toHaveBeenCalledTimes(0);
      expect((await gate.agent.getRequest(first.auth_req_id!)).state).toBe('approved');
      expect((await gate.agent.getRequest(other.auth_req_id!)).state).toBe('pending');
    });

    it('answers denied, and a later call with the same arguments does not run', async () => {
      gate.onAsk = 'deny';
      const runner = gate.runnerWith('poll');
      const answer = await runner.authorize('refund_order', args, session);
      expect(answer).toEqual({ status: 'denied', tool: 'refund_order', auth_req_id: expect.any(String) });
      gate.onAsk = undefined;
      const later = await runner.call('refund_order', args, session);
      // A new request, which nobody decides: the polling wait ends with its expiry.
      expect(later).toMatchObject({ status: 'expired', tool: 'refund_order' });
      expect(later.auth_req_id).not.toBe(answer.auth_req_id);
      expect(gate.executes.refund_order).toHaveBeenCalledTimes(0);
      expect(gate.world.payments.refunds).toEqual([]);
    });

    it('asks once for two identical authorizations made at once', async () => {
      gate.onAsk = 'approve';
      const runner = gate.runnerWith('poll');
      const requestApproval = vi.spyOn(gate.agent, 'requestApproval');
      const [a, b] = await Promise.all([runner.authorize('refund_order', args, session), runner.authorize('refund_order', { ...args }, session)]);
      expect(a).toMatchObject({ status: 'approved' });
      expect(b).toEqual(a);
      expect(requestApproval).toHaveBeenCalledTimes(1);
      expect(gate.executes.refund_order).toHaveBeenCalledTimes(0);
    });

    it('refuses malformed arguments and ungated tools before asking anyone', async () => {
      const runner = gate.runnerWith('poll');
      const requestApproval = vi.spyOn(gate.agent, 'requestApproval');
      expect(await runner.authorize('refund_order', { ...args, amount_minor: '490.00' }, session)).toMatchObject({ status: 'refused', error: 'invalid_request' });
      expect(await runner.authorize('lookup_order', { order_id: '1042' }, session)).toMatchObject({ status: 'refused', error: 'invalid_request' });
      expect(requestApproval).not.toHaveBeenCalled();
      expect(gate.executes.lookup_order).toHaveBeenCalledTimes(0);
    });
  });
});
