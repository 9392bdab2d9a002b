import { CountersignError } from '@countersign/shared';
import { z } from '@countersign/agent';
import { createPingInbox, createToolRunner, defineTool, listGatedTools, type AgentClient, type AnyTool, type GatedTool, type ToolCallResult, type ToolRunner, type WaitStrategy } from '@countersign/agent';
import { createFakeOrderBook, createFakePaymentLedger, defineRefundOrder, type FakePaymentLedger } from '@countersign/example-refund-order';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { harnessClient } from '../support/harness-client.ts';
import { servePingInbox, type PingEndpoint } from '../support/ping-endpoint.ts';

/**
 * The tool runner (docs/guarantees.md "Tool runner"): a tool marked as needing approval in its
 * own definition runs only through the gate, whatever the model does. Real server, real store,
 * real approval tokens, and a real passkey ceremony on the phone through the device API; the
 * "model" is a scripted sequence of tool calls.
 */

/** What every call carries: here, who approves supplier payments. */
interface Session {
  finance_approver: string;
}

/** The systems the tools act on, fresh for each test. */
interface World {
  payments: FakePaymentLedger;
  invoices: { invoice_id: string; amount_minor: number; idempotency_key: string }[];
  credits: { customer_id: string; amount_minor: number; idempotency_key: string }[];
}

const SUPPORT_LEAD = 'support_lead';
const FINANCE_LEAD = 'finance_lead';

/** The tools of the agent under test: three gated (one from examples/), two not. */
function buildTools(world: World) {
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

function newWorld(): World {
  return { payments: createFakePaymentLedger(), invoices: [], credits: [] };
}

/** How each gated tool is exercised: approved arguments, other arguments, who approves, what it did. */
const SCENARIOS: Record<string, { args: Record<string, unknown>; otherArgs: Record<string, unknown>; approver: string; effects(world: World): unknown[] }> = {
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
const GATED = listGatedTools(buildTools(newWorld())).map((tool) => tool.name);

const session: Session = { finance_approver: FINANCE_LEAD };

/** One tool call of the scripted model. */
interface ModelCall {
  name: string;
  args: unknown;
}

/**
 * A fake model: makes its scripted tool calls in order, reading each result, and ends the run as
 * soon as a call answers `approval_pending`, as an agent loop does when it must wait for a person.
 */
async function runModel(runner: ToolRunner<Session>, script: ModelCall[]) {
  const transcript: (ModelCall & { result: ToolCallResult })[] = [];
  for (const step of script) {
    const result = await runner.call(step.name, step.args, session);
    transcript.push({ ...step, result });
    if (result.status === 'approval_pending') return { ended: 'approval_pending' as const, transcript, pending: result };
  }
  return { ended: 'completed' as const, transcript };
}

describe('the tool runner, gated by Countersign', () => {
  let harness: Harness;
  let users: Record<string, EnrolledUser>;
  let agent: AgentClient;
  let world: World;
  let executes: Record<string, Mock>;
  let tools: AnyTool<Session>[];
  /** What the person does on the phone as soon as the agent asks: nothing, approve or deny. */
  let onAsk: 'approve' | 'deny' | undefined;

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    users = { [SUPPORT_LEAD]: await harness.enrollUser(SUPPORT_LEAD), [FINANCE_LEAD]: await harness.enrollUser(FINANCE_LEAD) };
    const { client_id, client_secret } = await harness.createClient('Support agent');
    agent = clientFor(client_id, client_secret);
    world = newWorld();
    onAsk = undefined;
    // Every tool's execute behind a spy, so a test can count the runs.
    executes = {};
    tools = buildTools(world).map((tool) => {
      const execute = vi.fn(tool.execute);
      executes[tool.name] = execute;
      return defineTool({ ...(tool as GatedTool), execute }) as AnyTool<Session>;
    });
  });

  afterEach(async () => {
    await harness.close();
  });

  /** The agent client on the harness; the person decides on the phone right after the agent asked (when `onAsk` says so). */
  function clientFor(clientId: string, clientSecret: string): AgentClient {
    return harnessClient(harness, clientId, clientSecret, {
      afterAsk: async (request, asked) => {
        if (onAsk) expect((await harness.decide(users[request.login_hint]!, asked.auth_req_id, onAsk)).status).toBe(200);
      },
    });
  }

  function runnerWith(wait: WaitStrategy, client: AgentClient = agent, waitTimeoutSeconds?: number): ToolRunner<Session> {
    return createToolRunner<Session>({ client, tools, wait, ...(waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds }) });
  }

  it('lists every tool marked as needing approval, and each has a scenario here', () => {
    const runner = runnerWith('none');
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
    const run = await runModel(runnerWith('none'), [{ name: 'lookup_order', args: { order_id: '1042' } }]);
    expect(run.ended).toBe('completed');
    expect(run.transcript[0]?.result).toEqual({ status: 'executed', tool: 'lookup_order', result: { order_id: '1042', customer: { id: 'acct_77', name: 'ACME Ltd' } } });
  });

  describe.each(GATED)('%s', (name) => {
    const scenario = SCENARIOS[name]!;

    it('does not run when the model calls it with no approval: the run ends waiting for approval', async () => {
      const run = await runModel(runnerWith('none'), [
        { name: 'get_exchange_rate', args: { from: 'EUR', to: 'USD' } },
        { name, args: scenario.args },
        { name: 'lookup_order', args: { order_id: '1042' } },
      ]);
      expect(run.ended).toBe('approval_pending');
      expect(run.transcript.map((step) => step.name)).toEqual(['get_exchange_rate', name]);
      expect(run.pending).toMatchObject({ status: 'approval_pending', tool: name, expires_in: 300, interval: 5 });
      expect(executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(world)).toEqual([]);
      expect((await agent.getRequest(run.pending!.auth_req_id)).state).toBe('pending');
    });

    it('does not run while a polling wait gets no decision: the call ends waiting for approval', async () => {
      const run = await runModel(runnerWith('poll', agent, 60), [{ name, args: scenario.args }]);
      expect(run.ended).toBe('approval_pending');
      expect(executes[name]).toHaveBeenCalledTimes(0);
      expect((await agent.getRequest(run.pending!.auth_req_id)).state).toBe('pending');
    });

    it('refuses to run with other arguments than the approved ones (approval_mismatch), and never executes them', async () => {
      const runner = runnerWith('none');
      const run = await runModel(runner, [{ name, args: scenario.args }]);
      const { auth_req_id } = run.pending!;
      expect((await harness.decide(users[scenario.approver]!, auth_req_id, 'approve')).status).toBe(200);

      const resumed = await runner.resume(auth_req_id, scenario.otherArgs, session);
      expect(resumed).toMatchObject({ status: 'refused', tool: name, error: 'approval_mismatch', auth_req_id });
      expect(executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(world)).toEqual([]);
      expect((await agent.getRequest(auth_req_id)).state).toBe('approved');
      const audit = await harness.admin('GET', `/audit?auth_req_id=${auth_req_id}`);
      expect(audit.body.events).toContainEqual(expect.objectContaining({ type: 'refused', reason: 'approval_mismatch' }));

      // The approval still holds for exactly what the person approved, once.
      expect(await runner.resume(auth_req_id, scenario.args, session)).toMatchObject({ status: 'executed', outcome: { status: 'succeeded' } });
      expect(await runner.resume(auth_req_id, scenario.otherArgs, session)).toMatchObject({ status: 'refused', error: 'invalid_grant' });
      expect(executes[name]).toHaveBeenCalledTimes(1);
      expect(executes[name]!.mock.calls[0]?.[0]).toEqual(scenario.args);
    });

    it('executes exactly once on approval, and the model gets the real outcome', async () => {
      onAsk = 'approve';
      const runner = runnerWith('poll');
      const run = await runModel(runner, [{ name, args: scenario.args }]);
      expect(run.ended).toBe('completed');
      const result = run.transcript[0]!.result;
      expect(executes[name]).toHaveBeenCalledTimes(1);
      const [effect] = scenario.effects(world) as { idempotency_key: string }[];
      expect(scenario.effects(world)).toHaveLength(1);
      if (result.status !== 'executed') throw new Error(`expected executed, got ${JSON.stringify(result)}`);
      const reference = Object.values(result.result as Record<string, string>)[0];
      expect(result.outcome).toEqual({ redemption_id: expect.any(String), status: 'succeeded', reference, reported: true });
      // It ran with the redemption's idempotency key, and the server holds the same outcome.
      const execution = executes[name]!.mock.calls[0]?.[1] as { idempotency_key: string; redemption: { redemption_id: string } };
      expect(execution.redemption.redemption_id).toBe(result.outcome!.redemption_id);
      expect(effect?.idempotency_key).toBe(execution.idempotency_key);
      expect(await agent.getRequest(result.auth_req_id!)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference } });

      // The model retries the same call: the same action, already spent; it does not run again.
      onAsk = undefined;
      const retry = await runner.call(name, scenario.args, session);
      expect(retry).toMatchObject({ status: 'refused', tool: name, error: 'invalid_grant', auth_req_id: result.auth_req_id });
      expect(executes[name]).toHaveBeenCalledTimes(1);
      expect(scenario.effects(world)).toHaveLength(1);
    });

    it('returns denied without executing when the person denies', async () => {
      onAsk = 'deny';
      const run = await runModel(runnerWith('poll'), [{ name, args: scenario.args }]);
      expect(run.ended).toBe('completed');
      expect(run.transcript[0]!.result).toMatchObject({ status: 'denied', tool: name });
      expect(executes[name]).toHaveBeenCalledTimes(0);
      expect(scenario.effects(world)).toEqual([]);
    });
  });

  it('returns expired without executing when nobody decides before the request expires', async () => {
    const run = await runModel(runnerWith('poll'), [{ name: 'refund_order', args: SCENARIOS.refund_order!.args }]);
    expect(run.transcript[0]!.result).toMatchObject({ status: 'expired', tool: 'refund_order' });
    expect(executes.refund_order).toHaveBeenCalledTimes(0);
  });

  it('refuses malformed arguments before asking anyone', async () => {
    const requestApproval = vi.spyOn(agent, 'requestApproval');
    const run = await runModel(runnerWith('poll'), [{ name: 'refund_order', args: { ...SCENARIOS.refund_order!.args, amount_minor: '490.00' } }]);
    expect(run.transcript[0]!.result).toMatchObject({ status: 'refused', error: 'invalid_request', error_description: /amount_minor/ });
    expect(requestApproval).not.toHaveBeenCalled();
    expect(executes.refund_order).toHaveBeenCalledTimes(0);
  });

  describe('authorize: approved in one step, run in another', () => {
    const { args } = SCENARIOS.refund_order!;

    it('never runs the tool and never redeems; a later call with the same arguments runs once without asking again', async () => {
      onAsk = 'approve';
      const runner = runnerWith('poll');
      const requestApproval = vi.spyOn(agent, 'requestApproval');
      const redeem = vi.spyOn(agent, 'redeem');
      const answer = await runner.authorize('refund_order', args, session);
      expect(answer).toEqual({ status: 'approved', tool: 'refund_order', auth_req_id: expect.any(String) });
      if (answer.status !== 'approved') throw new Error('not approved');
      expect(executes.refund_order).toHaveBeenCalledTimes(0);
      expect(redeem).not.toHaveBeenCalled();
      expect(world.payments.refunds).toEqual([]);
      expect((await agent.getRequest(answer.auth_req_id)).state).toBe('approved');
      // Authorizing again finds the held token: no second request, still nothing run.
      expect(await runner.authorize('refund_order', args, session)).toEqual(answer);

      onAsk = undefined;
      const result = await runner.call('refund_order', args, session);
      expect(result).toMatchObject({ status: 'executed', auth_req_id: answer.auth_req_id, outcome: { status: 'succeeded' } });
      expect(requestApproval).toHaveBeenCalledTimes(1);
      expect(redeem).toHaveBeenCalledTimes(1);
      expect(executes.refund_order).toHaveBeenCalledTimes(1);
      expect(executes.refund_order!.mock.calls[0]?.[0]).toEqual(args);
    });

    it('asks anew for other arguments, and leaves the first approval unspent', async () => {
      // Store credit: other customers are other transactions (a refund of order 1042 is one, whatever the amount).
      const credit = SCENARIOS.issue_store_credit!;
      onAsk = 'approve';
      const runner = runnerWith('poll');
      const requestApproval = vi.spyOn(agent, 'requestApproval');
      const first = await runner.authorize('issue_store_credit', credit.args, session);
      expect(first).toMatchObject({ status: 'approved' });
      onAsk = undefined;
      const other = await runner.authorize('issue_store_credit', credit.otherArgs, session, { wait: 'none' });
      expect(other).toMatchObject({ status: 'approval_pending', tool: 'issue_store_credit', expires_in: 300 });
      expect(other.auth_req_id).not.toBe(first.auth_req_id);
      expect(requestApproval).toHaveBeenCalledTimes(2);
      expect(executes.issue_store_credit).toHaveBeenCalledTimes(0);
      expect((await agent.getRequest(first.auth_req_id!)).state).toBe('approved');
      expect((await agent.getRequest(other.auth_req_id!)).state).toBe('pending');
    });

    it('answers denied, and a later call with the same arguments does not run', async () => {
      onAsk = 'deny';
      const runner = runnerWith('poll');
      const answer = await runner.authorize('refund_order', args, session);
      expect(answer).toEqual({ status: 'denied', tool: 'refund_order', auth_req_id: expect.any(String) });
      onAsk = undefined;
      const later = await runner.call('refund_order', args, session);
      // A new request, which nobody decides: the polling wait ends with its expiry.
      expect(later).toMatchObject({ status: 'expired', tool: 'refund_order' });
      expect(later.auth_req_id).not.toBe(answer.auth_req_id);
      expect(executes.refund_order).toHaveBeenCalledTimes(0);
      expect(world.payments.refunds).toEqual([]);
    });

    it('asks once for two identical authorizations made at once', async () => {
      onAsk = 'approve';
      const runner = runnerWith('poll');
      const requestApproval = vi.spyOn(agent, 'requestApproval');
      const [a, b] = await Promise.all([runner.authorize('refund_order', args, session), runner.authorize('refund_order', { ...args }, session)]);
      expect(a).toMatchObject({ status: 'approved' });
      expect(b).toEqual(a);
      expect(requestApproval).toHaveBeenCalledTimes(1);
      expect(executes.refund_order).toHaveBeenCalledTimes(0);
    });

    it('refuses malformed arguments and ungated tools before asking anyone', async () => {
      const runner = runnerWith('poll');
      const requestApproval = vi.spyOn(agent, 'requestApproval');
      expect(await runner.authorize('refund_order', { ...args, amount_minor: '490.00' }, session)).toMatchObject({ status: 'refused', error: 'invalid_request' });
      expect(await runner.authorize('lookup_order', { order_id: '1042' }, session)).toMatchObject({ status: 'refused', error: 'invalid_request' });
      expect(requestApproval).not.toHaveBeenCalled();
      expect(executes.lookup_order).toHaveBeenCalledTimes(0);
    });
  });

  describe('waiting for a ping (CIBA Core §10.2)', () => {
    let endpoint: PingEndpoint;
    afterEach(async () => {
      await endpoint.close();
    });

    it('waits for the ping, then executes once with the approved arguments', async () => {
      const inbox = createPingInbox();
      endpoint = await servePingInbox(inbox);
      const created = await harness.admin('POST', '/clients', {
        name: 'Ping agent',
        token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: endpoint.url,
      });
      expect(created.status).toBe(201);
      const pingClient = clientFor(created.body.client_id, created.body.client_secret);
      const waitForDecision = vi.spyOn(pingClient, 'waitForDecision');

      onAsk = 'approve';
      const run = await runModel(runnerWith({ ping: inbox }, pingClient), [{ name: 'refund_order', args: SCENARIOS.refund_order!.args }]);
      expect(run.transcript[0]!.result).toMatchObject({ status: 'executed', outcome: { status: 'succeeded', reference: world.payments.refunds[0]?.refund_id } });
      expect(executes.refund_order).toHaveBeenCalledTimes(1);
      expect(waitForDecision).not.toHaveBeenCalled();
    });
  });

  it('does not treat a server failure as a refusal: it propagates, and nothing runs', async () => {
    const failing: AgentClient = { ...agent, redeem: async () => Promise.reject(new CountersignError('server_error', 'redeem is down')) };
    onAsk = 'approve';
    await expect(runModel(runnerWith('poll', failing), [{ name: 'pay_invoice', args: SCENARIOS.pay_invoice!.args }])).rejects.toMatchObject({ code: 'server_error' });
    expect(executes.pay_invoice).toHaveBeenCalledTimes(0);
  });
});
