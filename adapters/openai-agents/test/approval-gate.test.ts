import { CountersignError, createPingInbox, createRedisPendingApprovals, type AgentClient, type PendingApprovals, type WaitStrategy } from '@countersign/agent';
import { createFakeOrderBook, createFakePaymentLedger, defineRefundOrder, type FakePaymentLedger, type PaymentSystem } from '@countersign/example-refund-order';
import { Agent, run, RunState, setTracingDisabled } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it, vi, type Mock } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../../test/support/harness.ts';
import { harnessClient } from '../../../test/support/harness-client.ts';
import { servePingInbox, type PingEndpoint } from '../../../test/support/ping-endpoint.ts';
import { createApprovalGate, decodeSavedRun, type ApprovalGate, type WaitingCall } from '../src/index.ts';

/**
 * The OpenAI Agents SDK adapter: a gated tool's `needsApproval` interruption is approved
 * by the person through Countersign, never by the app, and the tool's `execute` redeems that
 * approval against its exact arguments before it acts. The SDK's own scripted model, a real
 * server on the run's Redis, a software passkey that decides on the phone's API, and the pending
 * approvals in Redis. Every real refund is counted where the money would move.
 */

// The SDK exports traces to the network by default.
setTracingDisabled(true);

const SUPPORT_LEAD = 'support_lead';
const REFUND_1042 = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Arrived broken' };
const REFUND_1043 = { order_id: '1043', amount_minor: 12000, currency: 'EUR', reason: 'Never arrived' };

const redis = new Redis(inject('redisUrl'), { lazyConnect: true });
afterAll(() => redis.quit());

/** What the model saw of each tool call, by call id, in the input of its last turn. */
function toolOutputs(model: ScriptedModel): Record<string, unknown> {
  const input = model.lastCall?.request.input;
  const outputs: Record<string, unknown> = {};
  for (const item of Array.isArray(input) ? input : []) {
    if (item.type === 'function_call_result' && typeof item.output === 'object' && 'text' in item.output) outputs[item.callId] = JSON.parse(item.output.text as string);
  }
  return outputs;
}

describe('the OpenAI Agents SDK, gated by Countersign', () => {
  let harness: Harness;
  let person: EnrolledUser;
  let client: AgentClient;
  let ledger: FakePaymentLedger;
  /** Every call of the payment system: each one is a real refund. */
  let refunds: Mock<PaymentSystem['refund']>;
  let pending: PendingApprovals;
  /** What the person does as soon as a call waits for them: nothing, approve or deny. */
  let onWaiting: ((call: WaitingCall) => Promise<void>) | undefined;
  let waiting: WaitingCall[];

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    person = await harness.enrollUser(SUPPORT_LEAD);
    const { client_id, client_secret } = await harness.createClient('Support agent');
    client = clientFor(client_id, client_secret);
    ledger = createFakePaymentLedger();
    refunds = vi.fn((refund) => ledger.refund(refund));
    pending = createRedisPendingApprovals(redis, { prefix: `test:{oa-${randomBytes(6).toString('hex')}}:`, now: () => harness.clock.now() });
    onWaiting = undefined;
    waiting = [];
  });

  afterEach(async () => {
    await harness.close();
  });

  /** The agent client on the harness: a polling wait moves the server's clock instead of waiting. */
  function clientFor(clientId: string, clientSecret: string): AgentClient {
    return harnessClient(harness, clientId, clientSecret);
  }

  function gateWith(wait: WaitStrategy, options: { client?: AgentClient; waitTimeoutSeconds?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> } = {}): ApprovalGate<unknown> {
    const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' }, '1043': { id: 'acct_78', name: 'Globex' } });
    const refundOrder = defineRefundOrder({ login_hint: SUPPORT_LEAD, payments: { refund: refunds }, orders });
    return createApprovalGate({
      client: options.client ?? client,
      tools: [refundOrder],
      wait,
      pending,
      now: () => harness.clock.now(),
      sleep: options.sleep ?? (async (ms) => harness.clock.advance(ms / 1000)),
      ...(options.waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds: options.waitTimeoutSeconds }),
      onWaiting: async (call) => {
        waiting.push(call);
        await onWaiting?.(call);
      },
    });
  }

  function agentWith(gate: ApprovalGate<unknown>, model: ScriptedModel) {
    return new Agent({ name: 'Support', instructions: 'Refund damaged orders.', tools: gate.tools, model });
  }

  /** The model: asks for the refund of order 1042, then answers with what it was told. */
  function refundModel() {
    return new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1' })], [assistantMessage('Done.')]]);
  }

  it('does not run the tool while the person has not decided: the run stays interrupted, saved with the pending approval', async () => {
    const gate = gateWith('poll', { waitTimeoutSeconds: 30 });
    const model = refundModel();
    const result = await gate.run(agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.interruptions.map((item) => [item.name, JSON.parse(item.arguments!)])).toEqual([['refund_order', REFUND_1042]]);
    expect(refunds).not.toHaveBeenCalled();
    expect(model.calls).toHaveLength(1);
    expect(waiting).toEqual([{ run_id: expect.any(String), tool: 'refund_order', arguments: REFUND_1042, auth_req_id: expect.any(String), expires_in: 300 }]);
    expect((await client.getRequest(waiting[0]!.auth_req_id)).state).toBe('pending');
    // The pending approval holds the paused run, and no token.
    const [record] = await pending.list();
    expect(record).toMatchObject({ tool: 'refund_order', auth_req_id: waiting[0]!.auth_req_id });
    expect(record?.access_token).toBeUndefined();
    const saved = decodeSavedRun(record?.run_state);
    expect(saved).toMatchObject({ run_id: waiting[0]!.run_id, agent: 'Support', seq: 1 });
    const restored = await RunState.fromString(agentWith(gate, refundModel()), saved!.state);
    expect(restored.getInterruptions().map((item) => item.arguments)).toEqual([JSON.stringify(REFUND_1042)]);
  });

  it('runs the tool once the person approves, once, with the approved arguments, and the model gets the real outcome', async () => {
    onWaiting = async (call) => void expect((await harness.decide(person, call.auth_req_id, 'approve')).status).toBe(200);
    const gate = gateWith('poll');
    const model = refundModel();
    const result = await gate.run(agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.interruptions).toEqual([]);
    expect(result.finalOutput).toBe('Done.');
    expect(refunds).toHaveBeenCalledTimes(1);
    expect(refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000, currency: 'EUR' });
    const [refund] = ledger.refunds;
    const { auth_req_id } = waiting[0]!;
    expect(toolOutputs(model).call_1).toEqual({
      status: 'executed',
      tool: 'refund_order',
      result: { refund_id: refund!.refund_id },
      outcome: { redemption_id: expect.any(String), status: 'succeeded', reference: refund!.refund_id, reported: true },
      auth_req_id,
    });
    expect(await client.getRequest(auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: refund!.refund_id } });
    // It ran with the redemption's idempotency key; the spent approval is gone from the store.
    const audit = await harness.admin('GET', `/audit?auth_req_id=${auth_req_id}`);
    expect(audit.body.events.filter((event: { type: string }) => event.type === 'redeemed')).toHaveLength(1);
    expect(await pending.list()).toEqual([]);
  });

  it('never runs the tool for an interruption the app approves by itself, with no Countersign decision', async () => {
    const gate = gateWith('none');
    // The app runs the agent with the SDK's own run and approves the interruption itself.
    const model = refundModel();
    const agent = agentWith(gate, model);
    const first = await run(agent, 'Order 1042 arrived broken: refund it.');
    expect(first.interruptions).toHaveLength(1);
    first.state.approve(first.interruptions[0]!);
    const forged = await run(agent, first.state);
    expect(forged.finalOutput).toBe('Done.');
    expect(refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'invalid_grant' });

    // The same with a request asked and still undecided: the app's yes is not the person's.
    const model2 = refundModel();
    const agent2 = agentWith(gate, model2);
    const waitingRun = await gate.run(agent2, 'Order 1042 arrived broken: refund it.');
    expect(waitingRun.interruptions).toHaveLength(1);
    waitingRun.state.approve(waitingRun.interruptions[0]!);
    await run(agent2, waitingRun.state);
    expect(refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model2).call_1).toMatchObject({ status: 'refused', error: 'authorization_pending', auth_req_id: waiting[0]!.auth_req_id });
    expect((await client.getRequest(waiting[0]!.auth_req_id)).state).toBe('pending');
  });

  describe('a run state whose arguments were changed after the person approved', () => {
    /** Asks for the refund of 490.00 EUR, lets the person approve it, and changes the saved run to 490.01 EUR. */
    async function approvedThenChanged(gate: ApprovalGate<unknown>) {
      const result = await gate.run(agentWith(gate, refundModel()), 'Order 1042 arrived broken: refund it.');
      expect(result.interruptions).toHaveLength(1);
      expect((await harness.decide(person, waiting[0]!.auth_req_id, 'approve')).status).toBe(200);
      const saved = decodeSavedRun((await pending.list())[0]?.run_state)!;
      const changed = saved.state.replaceAll('\\"amount_minor\\":49000', '\\"amount_minor\\":49001');
      expect(changed).not.toBe(saved.state);
      return { saved, changed };
    }

    it('refuses the changed call through the gate (the transaction is the approved one) and runs nothing', async () => {
      const gate = gateWith('none');
      const { changed } = await approvedThenChanged(gate);
      const model = new ScriptedModel([[assistantMessage('Could not refund.')]]);
      const agent = agentWith(gate, model);
      const result = await gate.run(agent, await RunState.fromString(agent, changed));

      expect(result.finalOutput).toBe('Could not refund.');
      expect(refunds).not.toHaveBeenCalled();
      expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'transaction_conflict' });

      // The approval still holds for exactly what the person approved: the real run resumes and refunds 490.00 EUR once.
      const resumedModel = new ScriptedModel([[assistantMessage('Refunded.')]]);
      const [resumed] = await gate.resumePending(agentWith(gate, resumedModel));
      expect(resumed).toMatchObject({ result: { finalOutput: 'Refunded.' } });
      expect(refunds).toHaveBeenCalledTimes(1);
      expect(refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000 });
    });

    it('runs nothing when the app approves the changed call itself, even with the token put under its key: the server refuses the redemption', async () => {
      const gate = gateWith('none');
      const { changed } = await approvedThenChanged(gate);
      // The token fetched into the store, as the gate does once the person approved; then copied
      // to the changed call's key, as someone who can write the store could.
      const [record] = await pending.list();
      const polled = await client.pollToken(record!.auth_req_id);
      if (polled.status !== 'approved') throw new Error(`expected approved, got ${polled.status}`);
      const changedArgs = { ...REFUND_1042, amount_minor: 49001 };
      await pending.put({ ...record!, access_token: polled.token.access_token });
      await pending.put({ ...record!, call_key: await gate.runner.callKey('refund_order', changedArgs), access_token: polled.token.access_token });

      const model = new ScriptedModel([[assistantMessage('Could not refund.')]]);
      const agent = agentWith(gate, model);
      const state = await RunState.fromString(agent, changed);
      state.approve(state.getInterruptions()[0]!);
      await run(agent, state);
      expect(refunds).not.toHaveBeenCalled();
      expect(toolOutputs(model).call_1).toMatchObject({ status: 'refused', tool: 'refund_order', error: 'approval_mismatch', auth_req_id: record!.auth_req_id });
      const audit = await harness.admin('GET', `/audit?auth_req_id=${record!.auth_req_id}`);
      expect(audit.body.events).toContainEqual(expect.objectContaining({ type: 'refused', reason: 'approval_mismatch' }));
    });
  });

  it('rejects the interruption when the person denies: the tool does not run and the model is told', async () => {
    onWaiting = async (call) => void expect((await harness.decide(person, call.auth_req_id, 'deny')).status).toBe(200);
    const gate = gateWith('poll');
    const model = new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1' })], [assistantMessage('The refund was denied.')]]);
    const result = await gate.run(agentWith(gate, model), 'Order 1042 arrived broken: refund it.');

    expect(result.finalOutput).toBe('The refund was denied.');
    expect(refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toEqual({ status: 'denied', tool: 'refund_order', auth_req_id: waiting[0]!.auth_req_id });
    expect(await pending.list()).toEqual([]);
  });

  it('rejects the interruption when nobody decides before the request expires', async () => {
    const gate = gateWith('poll');
    const model = refundModel();
    await gate.run(agentWith(gate, model), 'Order 1042 arrived broken: refund it.');
    expect(refunds).not.toHaveBeenCalled();
    expect(toolOutputs(model).call_1).toEqual({ status: 'expired', tool: 'refund_order', auth_req_id: waiting[0]!.auth_req_id });
  });

  it('does not take a server failure for a no: the run throws, nothing runs, and the kept run resumes and runs once', async () => {
    onWaiting = async (call) => void expect((await harness.decide(person, call.auth_req_id, 'approve')).status).toBe(200);
    const failing: AgentClient = { ...client, redeem: () => Promise.reject(new CountersignError('server_error', 'redeem is down')) };
    const broken = gateWith('poll', { client: failing });
    await expect(broken.run(agentWith(broken, refundModel()), 'Order 1042 arrived broken: refund it.')).rejects.toMatchObject({ name: 'ToolCallError', error: { code: 'server_error' } });
    expect(refunds).not.toHaveBeenCalled();
    // The approval and its token are kept: a healthy process resumes the run and refunds once.
    const gate = gateWith('poll');
    const model = new ScriptedModel([[assistantMessage('Done.')]]);
    const [resumed] = await gate.resumePending(agentWith(gate, model));
    expect(resumed).toMatchObject({ result: { finalOutput: 'Done.' } });
    expect(refunds).toHaveBeenCalledTimes(1);
    expect(toolOutputs(model).call_1).toMatchObject({ status: 'executed', auth_req_id: waiting[0]!.auth_req_id });
  });

  describe('two gated calls in one turn, waiting for pings (CIBA Core §10.2)', () => {
    let endpoint: PingEndpoint;
    afterEach(async () => {
      await endpoint.close();
    });

    it('asks twice, and approving one releases only that one', async () => {
      const inbox = createPingInbox();
      endpoint = await servePingInbox(inbox);
      const created = await harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: endpoint.url });
      expect(created.status).toBe(201);
      // Real time: each call waits for its own ping, until its request expires.
      const gate = gateWith(
        { ping: inbox },
        {
          client: clientFor(created.body.client_id, created.body.client_secret),
          sleep: (ms, signal) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(resolve, ms);
              signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
            }),
        },
      );
      const model = new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1042' }), functionCall('refund_order', REFUND_1043, { callId: 'call_1043' })], [assistantMessage('One refunded, one denied.')]]);
      const running = gate.run(agentWith(gate, model), 'Refund orders 1042 and 1043.');

      await vi.waitFor(() => expect(waiting).toHaveLength(2));
      const [first, second] = ['1042', '1043'].map((order) => waiting.find((call) => (call.arguments as { order_id: string }).order_id === order)!);
      expect(first!.auth_req_id).not.toBe(second!.auth_req_id);
      expect((await harness.decide(person, first!.auth_req_id, 'approve')).status).toBe(200);
      await vi.waitFor(() => expect(refunds).toHaveBeenCalledTimes(1));
      expect(refunds.mock.calls[0]?.[0]).toMatchObject({ order_id: '1042', amount_minor: 49000 });
      // The other one still waits for its own decision, and has not run.
      expect((await harness.call('GET', `/requests/${second!.auth_req_id}`, { headers: { authorization: `Basic ${Buffer.from(`${created.body.client_id}:${created.body.client_secret}`).toString('base64')}` } })).body.state).toBe('pending');
      // The run is saved again after the refund returns, so the second save is waited for.
      await vi.waitFor(async () => {
        const stillWaiting = await pending.list();
        expect(stillWaiting.map((record) => record.auth_req_id)).toEqual([second!.auth_req_id]);
        expect(decodeSavedRun(stillWaiting[0]?.run_state)?.seq).toBe(2);
      });

      expect((await harness.decide(person, second!.auth_req_id, 'deny')).status).toBe(200);
      const result = await running;
      expect(result.finalOutput).toBe('One refunded, one denied.');
      expect(refunds).toHaveBeenCalledTimes(1);
      expect(toolOutputs(model)).toEqual({
        call_1042: expect.objectContaining({ status: 'executed', auth_req_id: first!.auth_req_id }),
        call_1043: { status: 'denied', tool: 'refund_order', auth_req_id: second!.auth_req_id },
      });
    });
  });
});
