import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { modelSaw, REFUND, scriptedModel, useAiSdk } from './support.ts';

// A gated call stops the run until the person approves, then runs once; an ungated one runs at once.

describe('Countersign for the Vercel AI SDK (@countersign/ai-sdk)', () => {
  const ai = useAiSdk();

  it('stops the run at a gated call, asks the person, and once they approve runs the tool once with the approved arguments; the model gets the real outcome', async () => {
    const model = scriptedModel([{ toolName: 'refund_order', input: REFUND }]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund order 1042, it arrived broken.' }];

    const stopped = await ai.run(model, messages);
    const requests = stopped.content.filter((part) => part.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ toolCall: { toolName: 'refund_order', input: REFUND } });
    // The person was asked for the exact refund, once; the reason tells the app which request waits.
    expect(ai.asked).toEqual([{ auth_req_id: expect.any(String), amount_minor: 49000 }]);
    const { auth_req_id } = ai.asked[0]!;
    expect(requests[0]!.reason).toContain(auth_req_id);
    expect((await ai.agent.getRequest(auth_req_id)).state).toBe('pending');
    expect(ai.refundExecute).toHaveBeenCalledTimes(0);
    expect(ai.ledger.refunds).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(1);

    messages.push(...stopped.responseMessages);
    expect((await ai.harness.decide(ai.approver, auth_req_id, 'approve')).status).toBe(200);
    const answers = await ai.gate.waitForDecisions(messages);
    expect(answers).toEqual({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: requests[0]!.approvalId, approved: true, reason: expect.any(String) }] });
    // Waiting for the decision spends nothing.
    expect(ai.refundExecute).toHaveBeenCalledTimes(0);
    expect((await ai.agent.getRequest(auth_req_id)).state).toBe('approved');

    messages.push(answers!);
    const resumed = await ai.run(model, messages);
    expect(ai.refundExecute).toHaveBeenCalledTimes(1);
    expect(ai.refundExecute.mock.calls[0]?.[0]).toEqual(REFUND);
    expect(ai.ledger.refunds).toEqual([{ refund_id: 're_1', order_id: '1042', amount_minor: 49000, currency: 'EUR', idempotency_key: expect.any(String) }]);
    expect(ai.ledger.refunds[0]!.idempotency_key).toBe((ai.refundExecute.mock.calls[0]![1] as { idempotency_key: string }).idempotency_key);
    expect(modelSaw(resumed.text).call_1).toEqual({
      type: 'json',
      value: {
        status: 'executed',
        tool: 'refund_order',
        result: { refund_id: 're_1' },
        outcome: { redemption_id: expect.any(String), status: 'succeeded', reference: 're_1', reported: true },
        auth_req_id,
      },
    });
    expect(await ai.agent.getRequest(auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' } });
    // Hook, wait, hook again and execute all found the one approval: the person was asked once.
    expect(ai.bcAuthorizeCalls).toBe(1);

    // The same continuation sent again (a retry, or a replayed request) refunds nothing more.
    const replayed = await ai.run(scriptedModel([]), messages);
    expect(modelSaw(replayed.text).call_1).toMatchObject({ type: 'json', value: { status: 'refused', tool: 'refund_order', error: 'invalid_grant' } });
    expect(ai.refundExecute).toHaveBeenCalledTimes(1);
    expect(ai.ledger.refunds).toHaveLength(1);
  });

  it('with the tools alone, a gated call waits inside execute until the person decides, then runs once', async () => {
    ai.onAsk = 'approve';
    const model = scriptedModel([{ toolName: 'refund_order', input: REFUND }]);
    const result = await generateText({ model, tools: ai.gate.tools(), prompt: 'Refund order 1042.', stopWhen: stepCountIs(5) });
    expect(ai.asked).toHaveLength(1);
    expect(ai.refundExecute).toHaveBeenCalledTimes(1);
    expect(ai.refundExecute.mock.calls[0]?.[0]).toEqual(REFUND);
    expect(ai.ledger.refunds).toHaveLength(1);
    expect(modelSaw(result.text).call_1).toMatchObject({ type: 'json', value: { status: 'executed', result: { refund_id: 're_1' }, outcome: { status: 'succeeded' } } });
  });

  it('runs an ungated tool at once, asking no one', async () => {
    const model = scriptedModel([{ toolName: 'lookup_order', input: { order_id: '1042' } }]);
    const result = await ai.run(model, [{ role: 'user', content: 'Who paid for 1042?' }]);
    expect(result.content.filter((part) => part.type === 'tool-approval-request')).toEqual([]);
    expect(modelSaw(result.text).call_1).toEqual({
      type: 'json',
      value: { status: 'executed', tool: 'lookup_order', result: { order_id: '1042', customer: { id: 'acct_77', name: 'ACME Ltd' } } },
    });
    expect(ai.asked).toEqual([]);
  });
});
