import { z } from '@countersign/agent';
import { createToolRunner, defineTool, listGatedTools, type AgentClient, type AnyTool, type GatedTool, type ToolCallResult, type ToolRunner, type WaitStrategy } from '@countersign/agent';
import { createFakeOrderBook, createFakePaymentLedger, defineRefundOrder, type FakePaymentLedger } from '@countersign/example-refund-order';
import { afterEach, beforeEach, expect, vi, type Mock } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { harnessClient } from '../../support/harness-client.ts';

/**
 * What the test/guarantees/tool-runner/ files share. The tool runner (docs/guarantees.md "Tool runner"): a tool marked as needing approval in its
 * own definition runs only through the gate, whatever the model does. Real server, real store,
 * real approval tokens, and a real passkey ceremony on the phone through the device API; the
 * "model" is a scripted sequence of tool calls.
 */

/** What every call carries: here, who approves supplier payments. */
export interface Session {
  finance_approver: string;
}

/** The systems the tools act on, fresh for each test. */
export interface World {
  payments: FakePaymentLedger;
  invoices: { invoice_id: string; amount_minor: number; idempotency_key: string }[];
  credits: { customer_id: string; amount_minor: number; idempotency_key: string }[];
}

/** Who approves refunds and store credit. */
export const SUPPORT_LEAD = 'support_lead';
/** Who approves supplier invoices. */
export const FINANCE_LEAD = 'finance_lead';

/** The tools of the agent under test: three gated (one from examples/), two not. */
export function buildTools(world: World) {
  const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' } });
  const lookupOrder = defineTool({
    name: 'lookup_order',
    description: 'Finds an order and who paid for it.',
    parameters: z.strictObject({ order_id: z.string() }),
    execute: async (args) => (await orders.findOrder(args.order_id)) ?? null,
  });
  const exchangeRate = defineTool({
    name: 'get_exchange_rate',
    description: 'Reads a reference exchange rate.',
    parameters: z.strictObject({ from: z.string().length(3), to: z.string().length(3) }),
    execute: () => ({ rate: '1.08' }),
  });
  const refundOrder = defineRefundOrder({ login_hint: SUPPORT_LEAD, payments: world.payments, orders });
  const payInvoice = defineTool({
    name: 'pay_invoice',
    description: 'Pays a supplier invoice, once the finance lead approved it.',
    parameters: z.strictObject({ invoice_id: z.string().regex(/^inv_\w{1,40}$/), amount_minor: z.number().int().positive(), currency: z.literal('EUR') }),
    execute: (args, { idempotency_key }) => {
      world.invoices.push({ invoice_id: args.invoice_id, amount_minor: args.amount_minor, idempotency_key });
      return { payment_id: `pay_${world.invoices.length}` };
    },
    approval: {
      login_hint: (_args, session: Session) => session.finance_approver,
      toAuthorizationDetails: (args) => [{ type: 'payment', transaction_id: args.invoice_id, amount_minor: args.amount_minor, currency: args.currency, payee: { id: 'acct_supplier_9', name: 'Paper Supplies GmbH' }, purpose: `Invoice ${args.invoice_id}` }],
      binding_message: (args) => `Invoice ${args.invoice_id}`,
      reference: (result) => result.payment_id,
    },
  });
  const issueStoreCredit = defineTool({
    name: 'issue_store_credit',
    description: "Credits a customer's store account.",
    parameters: z.strictObject({ customer_id: z.string().regex(/^cus_\w{1,40}$/), amount_minor: z.number().int().positive(), note: z.string().min(1).max(200) }),
    execute: (args, { idempotency_key }) => {
      world.credits.push({ customer_id: args.customer_id, amount_minor: args.amount_minor, idempotency_key });
      return { credit_id: `cr_${world.credits.length}` };
    },
    approval: {
      login_hint: SUPPORT_LEAD,
      toAuthorizationDetails: (args) => [{ type: 'payment', transaction_id: `credit_${args.customer_id}`, amount_minor: args.amount_minor, currency: 'EUR', payee: { id: args.customer_id, name: 'Store credit' }, purpose: args.note }],
      reference: (result) => result.credit_id,
    },
  });
  return [lookupOrder, refundOrder, exchangeRate, payInvoice, issueStoreCredit];
}

/** Fresh systems for the tools to act on. */
export function newWorld(): World {
  return { payments: createFakePaymentLedger(), invoices: [], credits: [] };
}

/** How each gated tool is exercised: approved arguments, other arguments, who approves, what it did. */
export const SCENARIOS: Record<string, { args: Record<string, unknown>; otherArgs: Record<string, unknown>; approver: string; effects(world: World): unknown[] }> = {
  refund_order: {
    args: { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Refund for order 1042' },
    otherArgs: { order_id: '1042', amount_minor: 49001, currency: 'EUR', reason: 'Refund for order 1042' },
    approver: SUPPORT_LEAD,
    effects: (world) => [...world.payments.refunds],
  },
  pay_invoice: {
    args: { invoice_id: 'inv_2231', amount_minor: 125_00, currency: 'EUR' },
    otherArgs: { invoice_id: 'inv_2231', amount_minor: 1_250_00, currency: 'EUR' },
    approver: FINANCE_LEAD,
    effects: (world) => [...world.invoices],
  },
  issue_store_credit: {
    args: { customer_id: 'cus_55', amount_minor: 20_00, note: 'Late delivery' },
    otherArgs: { customer_id: 'cus_56', amount_minor: 20_00, note: 'Late delivery' },
    approver: SUPPORT_LEAD,
    effects: (world) => [...world.credits],
  },
};

/** The gated tools, as the runner lists them: every one must have a scenario (checked below). */
export const GATED = listGatedTools(buildTools(newWorld())).map((tool) => tool.name);

/** The session every call of the scripted model carries. */
export const session: Session = { finance_approver: FINANCE_LEAD };

/** One tool call of the scripted model. */
export interface ModelCall {
  name: string;
  args: unknown;
}

/**
 * A fake model: makes its scripted tool calls in order, reading each result, and ends the run as
 * soon as a call answers `approval_pending`, as an agent loop does when it must wait for a person.
 */
export async function runModel(runner: ToolRunner<Session>, script: ModelCall[]) {
  const transcript: (ModelCall & { result: ToolCallResult })[] = [];
  for (const step of script) {
    const result = await runner.call(step.name, step.args, session);
    transcript.push({ ...step, result });
    if (result.status === 'approval_pending') return { ended: 'approval_pending' as const, transcript, pending: result };
  }
  return { ended: 'completed' as const, transcript };
}

/** One test's server, people, agent client and tools (each execute behind a spy), fresh for each test. */
export interface Gate {
  harness: Harness;
  users: Record<string, EnrolledUser>;
  agent: AgentClient;
  world: World;
  executes: Record<string, Mock>;
  tools: AnyTool<Session>[];
  /** What the person does on the phone as soon as the agent asks: nothing, approve or deny. */
  onAsk: 'approve' | 'deny' | undefined;
  /** The agent client on the harness; the person decides on the phone right after the agent asked (when `onAsk` says so). */
  clientFor(clientId: string, clientSecret: string): AgentClient;
  /** A runner over the gate's tools. */
  runnerWith(wait: WaitStrategy, client?: AgentClient, waitTimeoutSeconds?: number): ToolRunner<Session>;
}

/** Starts a {@link Gate} before each test of the calling file (a real server on Redis) and closes it after. */
export function useGate(): Gate {
  const gate = {
    onAsk: undefined,
    clientFor(clientId: string, clientSecret: string): AgentClient {
      return harnessClient(gate.harness, clientId, clientSecret, {
        afterAsk: async (request, asked) => {
          if (gate.onAsk) expect((await gate.harness.decide(gate.users[request.login_hint]!, asked.auth_req_id, gate.onAsk)).status).toBe(200);
        },
      });
    },
    runnerWith(wait: WaitStrategy, client: AgentClient = gate.agent, waitTimeoutSeconds?: number): ToolRunner<Session> {
      return createToolRunner<Session>({ client, tools: gate.tools, wait, ...(waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds }) });
    },
  } as Gate;

  beforeEach(async () => {
    gate.harness = await createHarness({ store: 'redis' });
    gate.users = { [SUPPORT_LEAD]: await gate.harness.enrollUser(SUPPORT_LEAD), [FINANCE_LEAD]: await gate.harness.enrollUser(FINANCE_LEAD) };
    const { client_id, client_secret } = await gate.harness.createClient('Support agent');
    gate.agent = gate.clientFor(client_id, client_secret);
    gate.world = newWorld();
    gate.onAsk = undefined;
    // Every tool's execute behind a spy, so a test can count the runs.
    gate.executes = {};
    gate.tools = buildTools(gate.world).map((tool) => {
      const execute = vi.fn(tool.execute);
      gate.executes[tool.name] = execute;
      return defineTool({ ...(tool as GatedTool), execute }) as AnyTool<Session>;
    });
  });

  afterEach(async () => {
    await gate.harness.close();
  });
  return gate;
}
