import { run, RunState } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { decodeSavedRun } from '../../src/index.ts';
import { REFUND_1042, toolOutputs, useScene } from './support.ts';

// The tool runs only on the person's approval through Countersign: not while undecided, once when
// approved, never on an approval the app gives itself.

describe('the OpenAI Agents SDK, gated by Countersign', () => {
  const scene = useScene();

  it('does not run the tool while the person has not decided: the run stays interrupted, saved with the pending approval', async () => {
    const gate = scene.gateWith('poll', { waitTimeoutSeconds: 30 });
    const model = scene.refundModel();
    const result = await gate.run(scene.agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.interruptions.map((item) => [item.name, JSON.parse(item.arguments!)])).toEqual([['refund_order', REFUND_1042]]);
    expect(scene.refunds).not.toHaveBeenCalled();
    expect(model.calls).toHaveLength(1);
    expect(scene.waiting).toEqual([{ run_id: expect.any(String), tool: 'refund_order', arguments: REFUND_1042, auth_req_id: expect.any(String), expires_in: 300 }]);
    expect((await scene.client.getRequest(scene.waiting[0]!.auth_req_id)).state).toBe('pending');
    // The pending approval holds the paused run, and no token.
    const [record] = await scene.pending.list();
    expect(record).toMatchObject({ tool: 'refund_order', auth_req_id: scene.waiting[0]!.auth_req_id });
    expect(record?.access_token).toBeUndefined();
    const saved = decodeSavedRun(record?.run_state);
    expect(saved).toMatchObject({ run_id: scene.waiting[0]!.run_id, agent: 'Support', seq: 1 });
    const restored = await RunState.fromString(scene.agentWith(gate, scene.refundModel()), saved!.state);
    expect(restored.getInterruptions().map((item) => item.arguments)).toEqual([JSON.stringify(REFUND_1042)]);
  });

  it('runs the tool once the person approves, once, with the approved arguments, and the model gets the real outcome', async () => {
    scene.onWaiting = async (call) => void expect((await scene.harness.decide(scene.person, call.auth_req_id, 'approve')).status).toBe(200);
    const gate = scene.gateWith('poll');
    const model = scene.refundModel();
    const result = await gate.run(scene.agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.interruptions).toEqual([]);
    expect(result.finalOutput).toBe('Done.');
    expect(scene.refunds).toHaveBeenCalledTimes(1);
    expect(scene.refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000, currency: 'EUR' });
    const [refund] = scene.ledger.refunds;
    const { auth_req_id } = scene.waiting[0]!;
    expect(toolOutputs(model).call_1).toEqual({
      status: 'executed',
      tool: 'refund_order',
      result: { refund_id: refund!.refund_id },
      outcome: { redemption_id: expect.any(String), status: 'succeeded', reference: refund!.refund_id, reported: true },
      auth_req_id,
    });
    expect(await scene.client.getRequest(auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: refund!.refund_id } });
    // It ran with the redemption's idempotency key; the spent approval is gone from the store.
    const audit = await scene.harness.admin('GET', `/audit?auth_req_id=${auth_req_id}`);
    expect(audit.body.events.filter((event: { type: string }) => event.type === 'redeemed')).toHaveLength(1);
    expect(await scene.pending.list()).toEqual([]);
  });

  it('never runs the tool for an interruption the app approves by itself, with no Countersign decision', async () => {
    const gate = scene.gateWith('none');
    // The app runs the agent with the SDK's own run and approves the interruption itself.
    const model = scene.refundModel();
    const agent = scene.agentWith(gate, model);
    const first = await run(agent, 'Order 1042 arrived broken: refund it.');
    expect(first.interruptions).toHaveLength(1);
    first.state.approve(first.interruptions[0]!);
    const forged = await run(agent, first.state);
    expect(forged.finalOutput).toBe('Done.');
    expect(scene.refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'invalid_grant' });

    // The same with a request asked and still undecided: the app's yes is not the person's.
    const model2 = scene.refundModel();
    const agent2 = scene.agentWith(gate, model2);
    const waitingRun = await gate.run(agent2, 'Order 1042 arrived broken: refund it.');
    expect(waitingRun.interruptions).toHaveLength(1);
    waitingRun.state.approve(waitingRun.interruptions[0]!);
    await run(agent2, waitingRun.state);
    expect(scene.refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model2).call_1).toMatchObject({ status: 'refused', error: 'authorization_pending', auth_req_id: scene.waiting[0]!.auth_req_id });
    expect((await scene.client.getRequest(scene.waiting[0]!.auth_req_id)).state).toBe('pending');
  });
});
