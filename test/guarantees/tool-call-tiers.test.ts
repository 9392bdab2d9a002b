import { afterEach, describe, expect, it } from 'vitest';
import { decideTier, loadPolicy, parsePolicy } from '../../server/src/policy/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { toolCall } from '../support/tool-call.ts';
import { bcAuthorize, device, shippedPolicy, testPolicy } from './policy-support.ts';

/** `tool_call` has tiers (README "The gate's policy") like any type, by tool name and annotation. */
describe('tiers of a tool call', () => {
  /** The shipped policy with a reviewer tier for one tool, and number matching for unannotated tools. */
  function rated() {
    const document = shippedPolicy();
    document.types.tool_call.tool_tiers = [
      { server: 'github', tool: 'delete_repository', tier: 'high' },
      { annotations: { destructiveHint: true, openWorldHint: true }, tier: 'elevated' },
    ];
    return parsePolicy(document);
  }

  it('ships a policy where the customer approves a destructive tool call with a passkey, no reviewer, no number matching', async () => {
    const policy = await loadPolicy();
    const decided = decideTier(policy, toolCall({ annotations: { destructiveHint: true } }));
    expect(decided.tier).toMatchObject({ name: 'standard', approvers: ['customer'], number_matching: false });
    expect(policy.types.tool_call!.tool_tiers).toEqual([{ annotations: { destructiveHint: true }, tier: 'standard' }]);
  });

  it('raises a tool by its server and name', () => {
    const policy = rated();
    expect(decideTier(policy, toolCall({ server: 'github', tool: 'delete_repository', annotations: { destructiveHint: true, openWorldHint: false } }))).toMatchObject({ tier: { name: 'high' }, basis: 'tool' });
    // Same tool name on another server: that rule does not apply.
    expect(decideTier(policy, toolCall({ server: 'gitlab', tool: 'delete_repository', annotations: { destructiveHint: true, openWorldHint: false } })).tier.name).toBe('standard');
  });

  it('raises a tool by its annotations, reading an unstated hint as MCP defaults it', () => {
    const policy = rated();
    expect(decideTier(policy, toolCall({ annotations: { destructiveHint: true, openWorldHint: true } })).tier.name).toBe('elevated');
    expect(decideTier(policy, toolCall({ annotations: { destructiveHint: true, openWorldHint: false } })).tier.name).toBe('standard');
    // No annotations at all: MCP says destructive and open world, so the rule applies.
    expect(decideTier(policy, toolCall({ annotations: undefined })).tier.name).toBe('elevated');
    // Read-only and stating nothing else: not destructive by default.
    expect(decideTier(policy, toolCall({ annotations: { readOnlyHint: true } })).tier.name).toBe('standard');
  });

  it('never lowers a tier below the type’s floors, whatever the annotations say', () => {
    const document = shippedPolicy();
    document.types.tool_call.reversibility = 'irreversible';
    const policy = parsePolicy(document);
    expect(decideTier(policy, toolCall({ annotations: { readOnlyHint: true, destructiveHint: false } }))).toMatchObject({ tier: { name: 'elevated' }, basis: 'reversibility' });
  });

  it('refuses tool rules that name no condition, an unknown tier, or sit on another type', () => {
    const document = shippedPolicy();
    document.types.tool_call.tool_tiers = [{ tier: 'high' }, { tool: 'x', tier: 'nope' }, { annotations: { scary: true }, tier: 'high' }];
    document.types.payment.tool_tiers = [{ tool: 'x', tier: 'high' }];
    expect(() => parsePolicy(document, 'p.json')).toThrow(/types\.tool_call\.tool_tiers\.0: a rule must name a server, a tool or an annotation/);
    const message = (() => {
      try {
        parsePolicy(document, 'p.json');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain('types.tool_call.tool_tiers.2.annotations: Unrecognized key: "scary"');
    const typed = shippedPolicy();
    typed.types.tool_call.tool_tiers = [{ tool: 'x', tier: 'nope' }];
    typed.types.payment.tool_tiers = [{ tool: 'x', tier: 'high' }];
    const second = (() => {
      try {
        parsePolicy(typed, 'p.json');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(second).toContain('types.payment.tool_tiers: only tool_call is rated by tool');
    expect(second).toContain('types.tool_call.tool_tiers.0.tier: no tier named nope');
  });
});

describe.each(['memory', 'redis'] as const)('a tool call against the limits (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  afterEach(() => harness.close());

  it('counts a tool call in the velocity window by count only: it moves no money', async () => {
    const policy = testPolicy((document) => {
      document.limits.velocity.per_user = { window_seconds: 3600, max_count: 3, max_amount_minor: { EUR: 1 } };
    });
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    customer = await harness.enrollUser('customer_1');
    const client = await harness.createClient('MCP gateway');
    const answers = [];
    for (const id of ['mcp_1', 'mcp_2', 'mcp_3', 'mcp_4']) answers.push(await bcAuthorize(harness, client, { login_hint: customer.sub, details: toolCall({ transaction_id: id, arguments: { amount_minor: 1_000_000 } }) }));
    // EUR 0.01 is the money limit, but no tool call is money: the first three pass, the fourth is over the count.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    const view = await device(harness, customer, 'GET', `/requests/${answers[0]!.body.auth_req_id}`);
    expect(view.body.request).toMatchObject({ tier: 'standard', approvals: [{ party: 'customer' }] });
  });
});
