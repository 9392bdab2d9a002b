import { defineTool, z, type AgentClient, type AnyTool, type GatedTool } from '@countersign/agent';
import { countersign, type Countersign } from '@countersign/ai-sdk';
import { createFakeOrderBook, createFakePaymentLedger, defineRefundOrder, type FakePaymentLedger } from '@countersign/example-refund-order';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, expect, vi, type Mock } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { harnessClient } from '../support/harness-client.ts';

/**
 * What the test/adapter-ai-sdk/ files share. `@countersign/ai-sdk`: the Vercel AI SDK's own `generateText` and its own mock
 * model (`MockLanguageModelV4` of `ai/test`, scripted turns, no network) against a real server
 * on the run's Redis, with the person's phone played by the harness's software passkey. Every
 * assertion on "it ran" counts the real executions of the tool and the refunds in the ledger.
 */

/** Who approves refunds. */
export const APPROVER = 'support_lead';
/** The refunds the scripted models ask for. */
export const REFUND = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged in transit' };
export const OTHER_REFUND = { order_id: '1043', amount_minor: 12000, currency: 'EUR', reason: 'Late delivery' };

/** One tool call the scripted model makes. */
export interface ScriptedCall {
  toolName: string;
  input: unknown;
}

/** The token usage every scripted turn reports. */
export const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * A model that makes `calls` (all in one step) when the conversation does not end in tool
 * results, and otherwise answers with the tool outputs it was given, as JSON: what the model saw.
 */
export function scriptedModel(calls: ScriptedCall[]) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role === 'tool') {
        const outputs = last.content.flatMap((part) => (part.type === 'tool-result' ? [{ toolCallId: part.toolCallId, output: part.output }] : []));
        return { content: [{ type: 'text', text: JSON.stringify(outputs) }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] };
      }
      return {
        content: calls.map((call, index) => ({ type: 'tool-call' as const, toolCallId: `call_${index + 1}`, toolName: call.toolName, input: JSON.stringify(call.input) })),
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/** What the model read back in its last turn, by tool call. */
export function modelSaw(text: string): Record<string, { type: string; value?: any; reason?: string }> {
  return Object.fromEntries((JSON.parse(text) as { toolCallId: string; output: { type: string } }[]).map((entry) => [entry.toolCallId, entry.output]));
}

/** One test's server, person, agent client, ledger and Countersign for the AI SDK, fresh for each test. */
export interface AiSdk {
  harness: Harness;
  approver: EnrolledUser;
  agent: AgentClient;
  ledger: FakePaymentLedger;
  refundExecute: Mock;
  tools: AnyTool[];
  /** Every approval the agent asked for, in order, and how many times it called `/bc-authorize`. */
  asked: { auth_req_id: string; amount_minor: unknown }[];
  bcAuthorizeCalls: number;
  /** What the person does on the phone as soon as the agent asks: nothing, approve or deny. */
  onAsk: 'approve' | 'deny' | undefined;
  gate: Countersign<undefined>;
  /**
   * The agent client on the harness: every `/bc-authorize` is counted, and the person decides
   * right away when `onAsk` says so.
   */
  clientFor(clientId: string, clientSecret: string): AgentClient;
  /** Runs the model over `messages` with Countersign's tools and approval hook, as an app would. */
  run(model: MockLanguageModelV4, messages: ModelMessage[], settings?: ReturnType<Countersign<undefined>['settings']>): ReturnType<typeof generateText>;
}

/** Starts an {@link AiSdk} before each test of the calling file (a real server on Redis) and closes it after. */
export function useAiSdk(): AiSdk {
  const ai = {
    clientFor(clientId: string, clientSecret: string): AgentClient {
      return harnessClient(ai.harness, clientId, clientSecret, {
        beforeAsk: () => {
          ai.bcAuthorizeCalls += 1;
        },
        afterAsk: async (request, answer) => {
          if (!ai.asked.some((entry) => entry.auth_req_id === answer.auth_req_id)) {
            ai.asked.push({ auth_req_id: answer.auth_req_id, amount_minor: (request.authorization_details[0] as { amount_minor?: unknown }).amount_minor });
          }
          if (ai.onAsk) {
            // Nothing has run when the person is asked.
            expect(ai.ledger.refunds).toEqual([]);
            expect((await ai.harness.decide(ai.approver, answer.auth_req_id, ai.onAsk)).status).toBe(200);
          }
        },
      });
    },

    async run(model: MockLanguageModelV4, messages: ModelMessage[], settings = ai.gate.settings()) {
      return generateText({ model, ...settings, messages, stopWhen: stepCountIs(5) });
    },
  } as AiSdk;

  beforeEach(async () => {
    ai.harness = await createHarness({ store: 'redis' });
    ai.approver = await ai.harness.enrollUser(APPROVER);
    const { client_id, client_secret } = await ai.harness.createClient('Support agent');
    ai.asked = [];
    ai.bcAuthorizeCalls = 0;
    ai.onAsk = undefined;
    ai.agent = ai.clientFor(client_id, client_secret);
    ai.ledger = createFakePaymentLedger();
    const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' }, '1043': { id: 'acct_78', name: 'Bolt GmbH' } });
    const refund = defineRefundOrder({ login_hint: APPROVER, payments: ai.ledger, orders });
    ai.refundExecute = vi.fn(refund.execute);
    const lookupOrder = defineTool({
      name: 'lookup_order',
      description: 'Finds an order and who paid for it.',
      parameters: z.strictObject({ order_id: z.string() }),
      execute: async (args) => (await orders.findOrder(args.order_id)) ?? null,
    });
    ai.tools = [lookupOrder, defineTool({ ...(refund as GatedTool), execute: ai.refundExecute })];
    ai.gate = countersign({ client: ai.agent, tools: ai.tools, wait: 'poll', waitTimeoutSeconds: 60, now: () => ai.harness.clock.now() });
  });

  afterEach(async () => {
    await ai.harness.close();
  });
  return ai;
}
