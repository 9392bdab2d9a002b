import { describe, expect, it } from 'vitest';
import { GATED, runModel, SCENARIOS, session, useGate } from './support.ts';

// Every tool marked as needing approval (support.ts) runs only through the gate: not without an
// approval, not with other arguments, once when approved, never when denied.

describe('the tool runner, gated by Countersign', () => {
  const gate = useGate();

  it('lists every tool marked as needing approval, and each has a scenario here', () => {
    const runner = gate.runnerWith('none');
    expect(runner.listGatedTools().map((tool) => tool.name)).toEqual(['refund_order', 'pay_invoice', 'issue_store_credit']);
    expect(GATED).toEqual(['refund_order', 'pay_invoice', 'issue_store_credit']);
    expect(Object.keys(SCENARIOS).sort()).toEqual([...GATED].sort());
    expect(
      runner
        .listTools()
        .filter((tool) => !tool.requiresApproval)
        .map((tool) => tool.name),
    ).toEqual(['lookup_order', 'get_exchange_rate']);
    // What the model is shown: JSON Schema of the arguments, with no way to pass an approval in.
    expect(runner.listGatedTools()[0]?.parameters).toMatchObject({
      type: 'object',
      required: ['order_id', 'amount_minor', 'currency', 'reason'],
      additionalProperties: false,
    });
  });

  it('runs an ungated tool at once, asking no one', async () => {
    const run = await runModel(gate.runnerWith('none'), [{ name: 'lookup_order', args: { order_id: '1042' } }]);
    expect(run.ended).toBe('completed');
    expect(run.transcript[0]?.result).toEqual({ status: 'executed', tool: 'lookup_order', result: { order_id: '1042', customer: { id: 'acct_77', name: 'ACME Ltd' } } });
  });

  describe.each(GATED)('%s', (name) => {
    const scenario = SCENARIOS[name]!;

    it('does not run when the model calls it with no approval: the run ends waiting for approval', async () => {
      const run = await runModel(gate.runnerWith('none'), [
        { name: 'get_exchange_rate', args: { from: 'EUR', to: 'USD' } },
        { name, args: scenario.args },
        { name: 'lookup_order', args: { order_id: '1042' } },
      ]);
      expect(run.ended).toBe('approval_pending');
      expect(run.transcript.map((step) => step.name)).toEqual(['get_exchange_rate', name]);
      expect(run.pending).toMatchObject({ status: 'approval_pending', tool: name, expires_in: 300, interval: 5 });
      expect(gate.executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(gate.world)).toEqual([]);
      expect((await gate.agent.getRequest(run.pending!.auth_req_id)).state).toBe('pending');
    });

    it('does not run while a polling wait gets no decision: the call ends waiting for approval', async () => {
      const run = await runModel(gate.runnerWith('poll', gate.agent, 60), [{ name, args: scenario.args }]);
      expect(run.ended).toBe('approval_pending');
      expect(gate.executes[name]).toHaveBeenCalledTimes(0);
      expect((await gate.agent.getRequest(run.pending!.auth_req_id)).state).toBe('pending');
    });

    it('refuses to run with other arguments than the approved ones (approval_mismatch), and never executes them', async () => {
      const runner = gate.runnerWith('none');
      const run = await runModel(runner, [{ name, args: scenario.args }]);
      const { auth_req_id } = run.pending!;
      expect((await gate.harness.decide(gate.users[scenario.approver]!, auth_req_id, 'approve')).status).toBe(200);

      const resumed = await runner.resume(auth_req_id, scenario.otherArgs, session);
      expect(resumed).toMatchObject({ status: 'refused', tool: name, error: 'approval_mismatch', auth_req_id });
      expect(gate.executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(gate.world)).toEqual([]);
      expect((await gate.agent.getRequest(auth_req_id)).state).toBe('approved');
      const audit = await gate.harness.admin('GET', `/audit?auth_req_id=${auth_req_id}`);
      expect(audit.body.events).toContainEqual(expect.objectContaining({ type: 'refused', reason: 'approval_mismatch' }));

      // The approval still holds for exactly what the person approved, once.
      expect(await runner.resume(auth_req_id, scenario.args, session)).toMatchObject({ status: 'executed', outcome: { status: 'succeeded' } });
      expect(await runner.resume(auth_req_id, scenario.otherArgs, session)).toMatchObject({ status: 'refused', error: 'invalid_grant' });
      expect(gate.executes[name]).toHaveBeenCalledTimes(1);
      expect(gate.executes[name]!.mock.calls[0]?.[0]).toEqual(scenario.args);
    });

    it('executes exactly once on approval, and the model gets the real outcome', async () => {
      gate.onAsk = 'approve';
      const runner = gate.runnerWith('poll');
      const run = await runModel(runner, [{ name, args: scenario.args }]);
      expect(run.ended).toBe('completed');
      const result = run.transcript[0]!.result;
      expect(gate.executes[name]).toHaveBeenCalledTimes(1);
      const [effect] = scenario.effects(gate.world) as { idempotency_key: string }[];
      expect(scenario.effects(gate.world)).toHaveLength(1);
      if (result.status !== 'executed') throw new Error(`expected executed, got ${JSON.stringify(result)}`);
      const reference = Object.values(result.result as Record<string, string>)[0];
      expect(result.outcome).toEqual({ redemption_id: expect.any(String), status: 'succeeded', reference, reported: true });
      // It ran with the redemption's idempotency key, and the server holds the same outcome.
      const execution = gate.executes[name]!.mock.calls[0]?.[1] as { idempotency_key: string; redemption: { redemption_id: string } };
      expect(execution.redemption.redemption_id).toBe(result.outcome!.redemption_id);
      expect(effect?.idempotency_key).toBe(execution.idempotency_key);
      expect(await gate.agent.getRequest(result.auth_req_id!)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference } });

      // The model retries the same call: the same action, already spent; it does not run again.
      gate.onAsk = undefined;
      const retry = await runner.call(name, scenario.args, session);
      expect(retry).toMatchObject({ status: 'refused', tool: name, error: 'invalid_grant', auth_req_id: result.auth_req_id });
      expect(gate.executes[name]).toHaveBeenCalledTimes(1);
      expect(scenario.effects(gate.world)).toHaveLength(1);
    });

    it('returns denied without executing when the person denies', async () => {
      gate.onAsk = 'deny';
      const run = await runModel(gate.runnerWith('poll'), [{ name, args: scenario.args }]);
      expect(run.ended).toBe('completed');
      expect(run.transcript[0]!.result).toMatchObject({ status: 'denied', tool: name });
      expect(gate.executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(gate.world)).toEqual([]);
    });
  });
});
