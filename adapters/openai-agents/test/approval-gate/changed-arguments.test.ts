import { run, RunState } from '@openai/agents';
import { assistantMessage, ScriptedModel } from '@openai/agents/testing';
import { describe, expect, it } from 'vitest';
import { decodeSavedRun, type ApprovalGate } from '../../src/index.ts';
import { REFUND_1042, toolOutputs, useScene } from './support.ts';

// A saved run whose arguments were changed after the approval runs nothing, whoever approves it.

describe('the OpenAI Agents SDK, gated by Countersign', () => {
  const scene = useScene();

  describe('a run state whose arguments were changed after the person approved', () => {
    /** Asks for the refund of 490.00 EUR, lets the person approve it, and changes the saved run to 490.01 EUR. */
    async function approvedThenChanged(gate: ApprovalGate<unknown>) {
      const result = await gate.run(scene.agentWith(gate, scene.refundModel()), 'Order 1042 arrived broken: refund it.');
      expect(result.interruptions).toHaveLength(1);
      expect((await scene.harness.decide(scene.person, scene.waiting[0]!.auth_req_id, 'approve')).status).toBe(200);
      const saved = decodeSavedRun((await scene.pending.list())[0]?.run_state)!;
      const changed = saved.state.replaceAll('\\"amount_minor\\":49000', '\\"amount_minor\\":49001');
      expect(changed).not.toBe(saved.state);
      return { saved, changed };
    }

    it('refuses the changed call through the gate (the transaction is the approved one) and runs nothing', async () => {
      const gate = scene.gateWith('none');
      const { changed } = await approvedThenChanged(gate);
      const model = new ScriptedModel([[assistantMessage('Could not refund.')]]);
      const agent = scene.agentWith(gate, model);
      const result = await gate.run(agent, await RunState.fromString(agent, changed));

      expect(result.finalOutput).toBe('Could not refund.');
      expect(scene.refunds).not.toHaveBeenCalled();
      expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'transaction_conflict' });

      // The approval still holds for exactly what the person approved: the real run resumes and refunds 490.00 EUR once.
      const resumedModel = new ScriptedModel([[assistantMessage('Refunded.')]]);
      const [resumed] = await gate.resumePending(scene.agentWith(gate, resumedModel));
      expect(resumed).toMatchObject({ result: { finalOutput: 'Refunded.' } });
      expect(scene.refunds).toHaveBeenCalledTimes(1);
      expect(scene.refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000 });
    });

    it('runs nothing when the app approves the changed call itself, even with the token put under its key: the server refuses the redemption', async () => {
      const gate = scene.gateWith('none');
      const { changed } = await approvedThenChanged(gate);
      // The token fetched into the store, as the gate does once the person approved; then copied
      // to the changed call's key, as someone who can write the store could.
      const [record] = await scene.pending.list();
      const polled = await scene.client.pollToken(record!.auth_req_id);
      if (polled.status !== 'approved') throw new Error(`expected approved, got ${polled.status}`);
      const changedArgs = { ...REFUND_1042, amount_minor: 49001 };
      await scene.pending.put({ ...record!, access_token: polled.token.access_token });
      await scene.pending.put({ ...record!, call_key: await gate.runner.callKey('refund_order', changedArgs), access_token: polled.token.access_token });

      const model = new ScriptedModel([[assistantMessage('Could not refund.')]]);
      const agent = scene.agentWith(gate, model);
      const state = await RunState.fromString(agent, changed);
      state.approve(state.getInterruptions()[0]!);
      await run(agent, state);
      expect(scene.refunds).not.toHaveBeenCalled();
      expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'approval_mismatch', auth_req_id: record!.auth_req_id });
      const audit = await scene.harness.admin('GET', `/audit?auth_req_id=${record!.auth_req_id}`);
      expect(audit.body.events).toContainEqual(expect.objectContaining({ type: 'refused', reason: 'approval_mismatch' }));
    });
  });
});
