import { createRedisPendingApprovals, type AgentClient, type PendingApprovals, type WaitStrategy } from '@countersign/agent';
import { createFakeOrderBook, createFakePaymentLedger, defineRefundOrder, type FakePaymentLedger, type PaymentSystem } from '@countersign/example-refund-order';
import { Agent, setTracingDisabled } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, inject, vi, type Mock } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../../../test/support/harness.ts';
import { harnessClient } from '../../../../test/support/harness-client.ts';
import { createApprovalGate, type ApprovalGate, type WaitingCall } from '../../src/index.ts';

/**
 * What the approval-gate/ files share. The OpenAI Agents SDK adapter: a gated tool's `needsApproval` interruption is approved
 * by the person through Countersign, never by the app, and the tool's `execute` redeems that
 * approval against its exact arguments before it acts. The SDK's own scripted model, a real
 * server on the run's Redis, a software passkey that decides on the phone's API, and the pending
 * approvals in Redis. Every real refund is counted where the money would move.
 */

// The SDK exports traces to the network by default.
setTracingDisabled(true);

/** Who approves refunds. */
export const SUPPORT_LEAD = 'support_lead';
/** The refunds the scripted models ask for. */
export const REFUND_1042 = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Arrived broken' };
export const REFUND_1043 = { order_id: '1043', amount_minor: 12000, currency: 'EUR', reason: 'Never arrived' };

/** What the model saw of each tool call, by call id, in the input of its last turn. */
export function toolOutputs(model: ScriptedModel): Record<string, unknown> {
  const input = model.lastCall?.request.input;
  const outputs: Record<string, unknown> = {};
  for (const item of Array.isArray(input) ? input : []) {
    if (item.type === 'function_call_result' && typeof item.output === 'object' && 'text' in item.output) outputs[item.callId] = JSON.parse(item.output.text as string);
  }
  return outputs;
}

/** One test's server, person, agent client, payment system and pending approvals, fresh for each test. */
export interface Scene {
  harness: Harness;
  person: EnrolledUser;
  client: AgentClient;
  ledger: FakePaymentLedger;
  /** Every call of the payment system: each one is a real refund. */
  refunds: Mock<PaymentSystem['refund']>;
  pending: PendingApprovals;
  /** What the person does as soon as a call waits for them: nothing, approve or deny. */
  onWaiting: ((call: WaitingCall) => Promise<void>) | undefined;
  waiting: WaitingCall[];
  /** The agent client on the harness: a polling wait moves the server's clock instead of waiting. */
  clientFor(clientId: string, clientSecret: string): AgentClient;
  /** A gate over the refund tool, its waits recorded in `waiting`. */
  gateWith(wait: WaitStrategy, options?: { client?: AgentClient; waitTimeoutSeconds?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> }): ApprovalGate<unknown>;
  agentWith(gate: ApprovalGate<unknown>, model: ScriptedModel): Agent;
  /** The model: asks for the refund of order 1042, then answers with what it was told. */
  refundModel(): ScriptedModel;
}

/** Starts a {@link Scene} before each test of the calling file (a real server, the pending approvals in the run's Redis) and closes it after. */
export function useScene(): Scene {
  const redis = new Redis(inject('redisUrl'), { lazyConnect: true });
  afterAll(() => redis.quit());
  const scene = {
    clientFor(clientId: string, clientSecret: string): AgentClient {
      return harnessClient(scene.harness, clientId, clientSecret);
    },

    gateWith(wait: WaitStrategy, options: { client?: AgentClient; waitTimeoutSeconds?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> } = {}): ApprovalGate<unknown> {
      const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' }, '1043': { id: 'acct_78', name: 'Globex' } });
      const refundOrder = defineRefundOrder({ login_hint: SUPPORT_LEAD, payments: { refund: scene.refunds }, orders });
      return createApprovalGate({
        client: options.client ?? scene.client,
        tools: [refundOrder],
        wait,
        pending: scene.pending,
        now: () => scene.harness.clock.now(),
        sleep: options.sleep ?? (async (ms) => scene.harness.clock.advance(ms / 1000)),
        ...(options.waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds: options.waitTimeoutSeconds }),
        onWaiting: async (call) => {
          scene.waiting.push(call);
          await scene.onWaiting?.(call);
        },
      });
    },

    agentWith(gate: ApprovalGate<unknown>, model: ScriptedModel) {
      return new Agent({ name: 'Support', instructions: 'Refund damaged orders.', tools: gate.tools, model });
    },

    refundModel() {
      return new ScriptedModel([[functionCall('refund_order', REFUND_1042, { callId: 'call_1' })], [assistantMessage('Done.')]]);
    },
  } as Scene;

  beforeEach(async () => {
    scene.harness = await createHarness({ store: 'redis' });
    scene.person = await scene.harness.enrollUser(SUPPORT_LEAD);
    const { client_id, client_secret } = await scene.harness.createClient('Support agent');
    scene.client = scene.clientFor(client_id, client_secret);
    scene.ledger = createFakePaymentLedger();
    scene.refunds = vi.fn((refund) => scene.ledger.refund(refund));
    scene.pending = createRedisPendingApprovals(redis, { prefix: `test:{oa-${randomBytes(6).toString('hex')}}:`, now: () => scene.harness.clock.now() });
    scene.onWaiting = undefined;
    scene.waiting = [];
  });

  afterEach(async () => {
    await scene.harness.close();
  });
  return scene;
}
