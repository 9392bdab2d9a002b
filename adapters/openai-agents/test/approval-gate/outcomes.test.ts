import { CountersignError, createPingInbox, type AgentClient } from '@countersign/agent';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { servePingInbox, type PingEndpoint } from '../../../../test/support/ping-endpoint.ts';
import { decodeSavedRun } from '../../src/index.ts';
import { REFUND_1042, REFUND_1043, toolOutputs, useScene } from './support.ts';

// A denial, an expiry and a server failure, and two gated calls in one turn each released by its own approval.

describe('the OpenAI Agents SDK, gated by Countersign', () => {
  const scene = useScene();

  it('rejects the interruption when the person denies: the tool does not run and the model is told', async () => {
    scene.onWaiting = async (call) => void expect((await scene.harness.decide(scene.person, call.auth_req_id, 'deny')).status).toBe(200);
    const gate = scene.gateWith('poll');
    const model = new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1' })], [assistantMessage('The refund was denied.')]]);
    const result = await gate.run(scene.agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.finalOutput).toBe('The refund was denied.');
    expect(scene.refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toEqual({ status: 'denied', tool: 'refund_order', auth_req_id: scene.waiting[0]!.auth_req_id });
    expect(await scene.pending.list()).toEqual([]);
  });

  it('rejects the interruption when nobody decides before the request expires', async () => {
    const gate = scene.gateWith('poll');
    const model = scene.refundModel();
    await gate.run(scene.agentWith(gate, model), 'Order 1042 arrived broken: refund it.');
    expect(scene.refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toEqual({ status: 'expired', tool: 'refund_order', auth_req_id: scene.waiting[0]!.auth_req_id });
  });

  it('does not take a server failure for a no: the run throws, nothing runs, and the kept run resumes and runs once', async () => {
    scene.onWaiting = async (call) => void expect((await scene.harness.decide(scene.person, call.auth_req_id, 'approve')).status).toBe(200);
    const failing: AgentClient = { ...scene.client, redeem: () => Promise.reject(new CountersignError('server_error', 'redeem is down')) };
    const broken = scene.gateWith('poll', { client: failing });
    await expect(broken.run(scene.agentWith(broken, scene.refundModel()), 'Order 1042 arrived broken: refund it.')).rejects.toMatchObject({ name: 'ToolCallError', error: { code: 'server_error' } });
    expect(scene.refunds).not.toHaveBeenCalled();
    // The approval and its token are kept: a healthy process resumes the run and refunds once.
    const gate = scene.gateWith('poll');
    const model = new ScriptedModel([[assistantMessage('Done.')]]);
    const [resumed] = await gate.resumePending(scene.agentWith(gate, model));
    expect(resumed).toMatchObject({ result: { finalOutput: 'Done.' } });
    expect(scene.refunds).toHaveBeenCalledTimes(1);
    expect(toolOutputs(model).call_1).toMatchObject({ status: 'executed', auth_req_id: scene.waiting[0]!.auth_req_id });
  });

  describe('two gated calls in one turn, waiting for pings (CIBA Core §10.2)', () => {
    let endpoint: PingEndpoint;
    afterEach(async () => {
      await endpoint.close();
    });

    it('asks twice, and approving one releases only that one', async () => {
      const inbox = createPingInbox();
      endpoint = await servePingInbox(inbox);
      const created = await scene.harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: endpoint.url });
      expect(created.status).toBe(201);
      // Real time: each call waits for its own ping, until its request expires.
      const gate = scene.gateWith(
        { ping: inbox },
        {
          client: scene.clientFor(created.body.client_id, created.body.client_secret),
          sleep: (ms, signal) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(resolve, ms);
              signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
            }),
        },
      );
      const model = new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1042' }), functionCall('refund_order', REFUND_1043, { callId: 'call_1043' })], [assistantMessage('One refunded, one denied.')]]);
      const running = gate.run(scene.agentWith(gate, model), 'Refund orders 1042 and 1043.');

      await vi.waitFor(() => expect(scene.waiting).toHaveLength(2));
      const [first, second] = ['1042', '1043'].map((order) => scene.waiting.find((call) => (call.arguments as { order_id: string }).order_id === order)!);
      expect(first!.auth_req_id).not.toBe(second!.auth_req_id);
      expect((await scene.harness.decide(scene.person, first!.auth_req_id, 'approve')).status).toBe(200);
      await vi.waitFor(() => expect(scene.refunds).toHaveBeenCalledTimes(1));
      expect(scene.refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000 });
      // The other one still waits for its own decision, and has not run.
      expect((await scene.harness.call('GET', `/requests/${second!.auth_req_id}`, { headers: { authorization: `Basic ${Buffer.from(`${created.body.client_id}:${created.body.client_secret}`).toString('base64')}` } })).body.state).toBe('pending');
      // The run is saved again after the refund returns, so the second save is waited for.
      await vi.waitFor(async () => {
        const stillWaiting = await scene.pending.list();
        expect(stillWaiting.map((record) => record.auth_req_id)).toEqual([second!.auth_req_id]);
        expect(decodeSavedRun(stillWaiting[0]?.run_state)?.seq).toBe(2);
      });

      expect((await scene.harness.decide(scene.person, second!.auth_req_id, 'deny')).status).toBe(200);
      const result = await running;
      expect(result.finalOutput).toBe('One refunded, one denied.');
      expect(scene.refunds).toHaveBeenCalledTimes(1);
      expect(toolOutputs(model)).toEqual({
        call_1042: expect.objectContaining({ status: 'executed', auth_req_id: first!.auth_req_id }),
        call_1043: { status: 'denied', tool: 'refund_order', auth_req_id: second!.auth_req_id },
      });
    });
  });
});
