import { createToolRunner, defineTool, z, type AgentClient, type AnyTool, type GatedTool, type ToolRunner } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { harnessClient } from '../support/harness-client.ts';
import { answer } from './policy-support.ts';

/**
 * The tool runner (docs/guarantees.md "Tool runner"): a gated tool whose proposal is not a payment
 * goes through the runner as a payment tool does: proposed, approved on the phone (number matching
 * where the shipped policy's tier asks for it), redeemed against the action rebuilt from the same
 * arguments, and executed once with exactly them. Real server and Redis; the "model" calls the
 * runner.
 */

const OPS_LEAD = 'ops_lead';

/** The systems the tools act on: a CRM's customers and an ad platform's campaigns with versions. */
interface World {
  customers: Set<string>;
  deleted: { ids: string[]; idempotency_key: string }[];
  campaigns: Map<string, { name: string; daily_budget_eur_minor: number; version: number }>;
}

function newWorld(): World {
  return {
    customers: new Set(['cus_1', 'cus_2', 'cus_3']),
    deleted: [],
    campaigns: new Map([['cmp_4', { name: 'Auto EU', daily_budget_eur_minor: 4000, version: 17 }]]),
  };
}

function buildTools(world: World) {
  const deleteCustomers = defineTool({
    name: 'delete_customers',
    description: 'Erases customers from the CRM for an erasure request. Cannot be undone.',
    parameters: z.strictObject({
      request_id: z.string().regex(/^er_\w{1,40}$/),
      customer_ids: z
        .array(z.string().regex(/^cus_\w{1,40}$/))
        .min(1)
        .max(100),
    }),
    execute: (args, { idempotency_key }) => {
      for (const id of args.customer_ids) world.customers.delete(id);
      world.deleted.push({ ids: [...args.customer_ids], idempotency_key });
      return { erased: args.customer_ids.length };
    },
    approval: {
      login_hint: OPS_LEAD,
      toAuthorizationDetails: (args) => [
        {
          type: 'deletion',
          transaction_id: `del_${args.request_id}`,
          resource: { kind: 'customer', system: 'crm' },
          ids: args.customer_ids,
          count: args.customer_ids.length,
          reversible: false,
          purpose: `Erasure request ${args.request_id}`,
        },
      ],
      binding_message: (args) => `Erasure ${args.request_id}`,
      reference: (result) => `erased_${result.erased}`,
    },
  });
  const setPayout = defineTool({
    name: 'set_campaign_budget',
    description: "Sets a campaign's daily budget, in euro cents.",
    parameters: z.strictObject({ campaign_id: z.string().regex(/^cmp_\w{1,40}$/), daily_budget_eur_minor: z.number().int().positive() }),
    execute: (args) => {
      const campaign = world.campaigns.get(args.campaign_id)!;
      campaign.daily_budget_eur_minor = args.daily_budget_eur_minor;
      campaign.version += 1;
      return { version: campaign.version };
    },
    approval: {
      login_hint: OPS_LEAD,
      // The `from` value and the version are what the campaign system states now, not the model.
      toAuthorizationDetails: (args) => {
        const campaign = world.campaigns.get(args.campaign_id)!;
        return [
          {
            type: 'record_change',
            transaction_id: `budget_${args.campaign_id}_${campaign.version}`,
            record: { kind: 'campaign', id: args.campaign_id, name: campaign.name },
            changes: [{ field: 'daily_budget_eur_minor', from: campaign.daily_budget_eur_minor, to: args.daily_budget_eur_minor }],
            purpose: 'Raise daily budget',
            precondition: { record: `campaign:${args.campaign_id}`, version: String(campaign.version) },
          },
        ];
      },
      currentVersions: (args) => ({ [`campaign:${args.campaign_id}`]: String(world.campaigns.get(args.campaign_id)!.version) }),
      reference: (result) => `v${result.version}`,
    },
  });
  return [deleteCustomers, setPayout];
}

describe('the tool runner with deletion and record_change actions (redis store)', () => {
  let harness: Harness;
  let lead: EnrolledUser;
  let agent: AgentClient;
  let world: World;
  let runner: ToolRunner<undefined>;
  let executes: Record<string, ReturnType<typeof vi.fn>>;
  /** Each `/bc-authorize` answer, as the agent got it. */
  let asked: { auth_req_id: string; binding_code?: string }[];

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    lead = await harness.enrollUser(OPS_LEAD);
    const { client_id, client_secret } = await harness.createClient('Ops agent');
    asked = [];
    // The person approves on the phone as soon as the agent asks, picking the agent's code when there is one.
    agent = harnessClient(harness, client_id, client_secret, {
      afterAsk: async (_request, reply) => {
        asked.push(reply);
        const decided = await answer(harness, lead, reply.auth_req_id, reply.binding_code === undefined ? { decision: 'approve' } : { decision: 'approve', code: reply.binding_code });
        expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      },
    });
    world = newWorld();
    executes = {};
    const tools = buildTools(world).map((tool) => {
      const execute = vi.fn(tool.execute);
      executes[tool.name] = execute;
      return defineTool({ ...(tool as GatedTool), execute }) as AnyTool<undefined>;
    });
    runner = createToolRunner<undefined>({ client: agent, tools, wait: 'poll' });
  });
  afterEach(() => harness.close());

  it('proposes a deletion, waits for the passkey approval with number matching, redeems it and erases exactly the approved records once', async () => {
    const args = { request_id: 'er_88', customer_ids: ['cus_1', 'cus_2'] };
    const result = await runner.call('delete_customers', args, undefined);
    expect(result).toMatchObject({ status: 'executed', tool: 'delete_customers', result: { erased: 2 }, outcome: { status: 'succeeded', reference: 'erased_2', reported: true } });
    // Irreversible and many: the elevated tier, so the agent had a code to show and the phone asked for it.
    expect(asked).toHaveLength(1);
    expect(asked[0]!.binding_code).toMatch(/^[1-9][0-9]$/);
    expect(executes.delete_customers).toHaveBeenCalledTimes(1);
    expect(executes.delete_customers!.mock.calls[0]![0]).toEqual(args);
    expect([...world.customers]).toEqual(['cus_3']);
    const execution = executes.delete_customers!.mock.calls[0]![1] as { idempotency_key: string; redemption: { authorization_details: unknown } };
    expect(execution.idempotency_key).toBe('del_er_88');
    expect(world.deleted).toEqual([{ ids: ['cus_1', 'cus_2'], idempotency_key: 'del_er_88' }]);
    expect(execution.redemption.authorization_details).toEqual([{ type: 'deletion', transaction_id: 'del_er_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1', 'cus_2'], count: 2, reversible: false, purpose: 'Erasure request er_88' }]);

    const id = asked[0]!.auth_req_id;
    const request = (await harness.admin('GET', `/requests/${id}`)).body.request;
    expect(request).toMatchObject({ state: 'redeemed', tier: 'elevated', outcome: { status: 'succeeded', reference: 'erased_2' } });
    const trail = ((await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string }[]).map((event) => event.type);
    expect(trail.filter((type) => ['proposed', 'approved', 'token_issued', 'redeemed', 'outcome'].includes(type))).toEqual(['proposed', 'approved', 'token_issued', 'redeemed', 'outcome']);

    // The model calls it again: the same action, already spent; nothing is erased twice.
    const retry = await runner.call('delete_customers', args, undefined);
    expect(retry).toMatchObject({ status: 'refused', error: 'invalid_grant', auth_req_id: id });
    expect(executes.delete_customers).toHaveBeenCalledTimes(1);
  });

  it("proposes a record_change with the record's current value and version, redeems it at that version and writes it once", async () => {
    const args = { campaign_id: 'cmp_4', daily_budget_eur_minor: 4250 };
    const result = await runner.call('set_campaign_budget', args, undefined);
    expect(result).toMatchObject({ status: 'executed', tool: 'set_campaign_budget', result: { version: 18 }, outcome: { status: 'succeeded', reference: 'v18' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).not.toHaveProperty('binding_code');
    expect(executes.set_campaign_budget).toHaveBeenCalledTimes(1);
    expect(executes.set_campaign_budget!.mock.calls[0]![0]).toEqual(args);
    expect(world.campaigns.get('cmp_4')).toEqual({ name: 'Auto EU', daily_budget_eur_minor: 4250, version: 18 });
    const stored = (await harness.admin('GET', `/requests/${asked[0]!.auth_req_id}`)).body.request;
    expect(stored).toMatchObject({ state: 'redeemed', tier: 'standard' });
    expect(stored.authorization_details[0]).toMatchObject({ changes: [{ field: 'daily_budget_eur_minor', from: 4000, to: 4250 }], precondition: { record: 'campaign:cmp_4', version: '17' } });
  });
});
