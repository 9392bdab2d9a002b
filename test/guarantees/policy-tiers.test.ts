import type { CountersignError } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { afterEach, describe, expect, it } from 'vitest';
import { decideTier, loadPolicy, parsePolicy, storedPolicySchema, type Policy } from '../../server/src/policy/index.ts';
import { authorizationDetails } from '@countersign/shared';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { answer, bcAuthorize, device, pay, policyFile, pollToken, shippedPolicy, testPolicy } from './policy-support.ts';

/** Policy in one place (docs/guarantees.md "Policy tiers"): tiers from amount per currency, reversibility and blast radius. */
describe('the policy file', () => {
  it('ships a default that validates, rating every registered type', async () => {
    const policy = await loadPolicy();
    expect(policy.tiers.map((tier) => tier.name)).toEqual(['standard', 'elevated', 'high']);
    expect(Object.keys(policy.types)).toEqual(['payment', 'deletion', 'message', 'access_change', 'record_change', 'mandate', 'tool_call']);
  });

  it('rates a type a stored tenant policy predates at its strictest tier, and refuses such a policy as a new one', () => {
    const older = shippedPolicy();
    delete older.types.deletion;
    expect(() => parsePolicy(older, 'new.json')).toThrow('types.deletion: every registered authorization_details type needs a policy');
    const stored = parsePolicy(older, 'stored', storedPolicySchema);
    const deletion = authorizationDetails.parse([{ type: 'deletion', transaction_id: 'del_1', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1'], count: 1, reversible: true, purpose: 'Test' }]);
    expect(decideTier(stored, deletion)).toMatchObject({ tier: { name: 'high' }, basis: 'unrated_type' });
    // The types it does rate keep their rules.
    expect(decideTier(stored, payment({ amount_minor: 100 })).tier.name).toBe('standard');
  });

  it('refuses a malformed policy at start, naming every problem', async () => {
    const broken = shippedPolicy();
    broken.limits.velocity.per_user.max_amount_minor = { EURO: 5 };
    broken.tiers[1].token_lifetime_seconds = 0;
    broken.set_by_agent = true;
    const error = await createHarness({ env: { POLICY_FILE: policyFile(broken) } }).then(
      () => null,
      (caught: Error) => caught,
    );
    expect(error?.message).toMatch(/^invalid policy \(.*policy\.json\):/);
    for (const problem of ['limits.velocity.per_user.max_amount_minor.EURO', 'tiers.1.token_lifetime_seconds', '(root): Unrecognized key: "set_by_agent"']) {
      expect(error?.message).toContain(problem);
    }
  });

  it('refuses a policy whose parts do not fit together, naming every problem', () => {
    const broken = shippedPolicy();
    broken.types.payment.amount_tiers.EUR = [
      { from_minor: 500, tier: 'elevated' },
      { from_minor: 400, tier: 'nope' },
    ];
    broken.tiers[0].approvers = ['customer', 'customer'];
    broken.floors.blast_radius.all = 'highest';
    const message = (() => {
      try {
        parsePolicy(broken, 'broken.json');
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message.split('\n').map((line) => line.trim())).toEqual([
      'invalid policy (broken.json):',
      'tiers.0.approvers: an approver may be named once',
      'floors.blast_radius.all: no tier named highest',
      'types.payment.amount_tiers.EUR.1.tier: no tier named nope',
      'types.payment.amount_tiers.EUR.1: thresholds must ascend',
    ]);
  });

  it('refuses a policy that leaves a registered type unrated, and one that rates an unknown type', () => {
    const unrated = shippedPolicy();
    delete unrated.types.payment;
    expect(() => parsePolicy(unrated)).toThrow('types.payment: every registered authorization_details type needs a policy');
    const unknown = shippedPolicy();
    unknown.types.wire = unknown.types.payment;
    expect(() => parsePolicy(unknown)).toThrow('types.wire: not a registered authorization_details type');
  });

  it('takes max_wrong_code_picks only as 1 (what always happens) and refuses any other number of picks', () => {
    const one = shippedPolicy();
    one.limits.max_wrong_code_picks = 1;
    expect(parsePolicy(one).limits.max_wrong_code_picks).toBe(1);
    expect(parsePolicy(shippedPolicy()).limits).not.toHaveProperty('max_wrong_code_picks');
    const three = shippedPolicy();
    three.limits.max_wrong_code_picks = 3;
    expect(() => parsePolicy(three, 'old.json')).toThrow('limits.max_wrong_code_picks: must be 1 or left out: the first wrong pick denies the request');
  });

  it('refuses a POLICY_FILE that does not exist rather than falling back to the default', async () => {
    await expect(loadPolicy('/nonexistent/policy.json')).rejects.toThrow('cannot read the policy file /nonexistent/policy.json');
  });
});

describe('deciding a tier', () => {
  let policy: Policy;
  const tierOf = (details = payment()) => decideTier(policy, details);

  it('rates a payment by its amount in minor units of its own currency', async () => {
    policy = await loadPolicy();
    expect(tierOf(pay('t', 99_999, 'EUR'))).toMatchObject({ tier: { name: 'standard' }, basis: 'lowest' });
    expect(tierOf(pay('t', 100_000, 'EUR'))).toMatchObject({ tier: { name: 'elevated' }, basis: 'amount' });
    expect(tierOf(pay('t', 1_000_000, 'EUR'))).toMatchObject({ tier: { name: 'high' }, basis: 'amount' });
    // JPY has no minor unit: ¥100,000 is below its elevated threshold of ¥150,000, EUR 1,000.00 is not.
    expect(tierOf(pay('t', 100_000, 'JPY')).tier.name).toBe('standard');
    expect(tierOf(pay('t', 150_000, 'JPY')).tier.name).toBe('elevated');
  });

  it('gives an amount in a currency the policy does not list the unlisted-currency tier', async () => {
    policy = await loadPolicy();
    expect(tierOf(pay('t', 1, 'SEK'))).toMatchObject({ tier: { name: 'high' }, basis: 'unlisted_currency' });
  });

  it('raises the tier to what the type’s reversibility and blast radius ask for', () => {
    const irreversible = shippedPolicy();
    irreversible.types.payment.reversibility = 'irreversible';
    policy = parsePolicy(irreversible);
    expect(tierOf(pay('t', 100))).toMatchObject({ tier: { name: 'elevated' }, basis: 'reversibility' });
    const wide = shippedPolicy();
    wide.types.payment.blast_radius = 'all';
    policy = parsePolicy(wide);
    expect(tierOf(pay('t', 100))).toMatchObject({ tier: { name: 'high' }, basis: 'blast_radius' });
  });

  it('does not lower the tier when an amount is split over several actions of one request', async () => {
    policy = await loadPolicy();
    const halves = [...pay('t1', 50_000), ...pay('t2', 50_000)];
    expect(tierOf(halves).tier.name).toBe('elevated');
    // Different currencies are never added together.
    expect(tierOf([...pay('t1', 60_000, 'EUR'), ...pay('t2', 60_000, 'USD')]).tier.name).toBe('standard');
  });
});

describe.each(['memory', 'redis'] as const)('a tier decided at request time (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };
  const shortTier = (policy: any) => {
    policy.tiers[0].request_expiry_seconds = 120;
    policy.tiers[0].token_lifetime_seconds = 90;
  };

  async function start(env: Record<string, string> = {}) {
    harness = await createHarness({ store: storeKind, env });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Support agent');
  }
  afterEach(() => harness.close());

  it('stores the tier with the request and shows it on the device and to the operator', async () => {
    await start();
    const small = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1', 49_000) })).body.auth_req_id;
    // The high tier needs a finance reviewer, and a request nobody could approve is refused (no_approver).
    expect((await harness.admin('POST', '/users', { sub: 'rita', roles: ['reviewer:finance'] })).status).toBe(201);
    const large = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2', 2_000_000) })).body.auth_req_id;
    const smallView = await device(harness, customer, 'GET', `/requests/${small}`);
    expect(smallView.body.request).toMatchObject({ tier: 'standard', approvals: [{ party: 'customer', label: 'Customer', status: 'waiting', approved_at: null }], number_matching: null, viewer: { party: 'customer', can_decide: true, can_report: true } });
    const admin = await harness.admin('GET', `/requests/${large}`);
    expect(admin.body.request).toMatchObject({ tier: 'high', parties: ['customer', 'role:reviewer:finance'], approvals: [], token_lifetime: 120, state: 'pending' });
    expect(admin.body.request).not.toHaveProperty('binding_code');
    expect(admin.body.display).toMatchObject({ tier: 'high', viewer: null, number_matching: null });
    const audit = await harness.admin('GET', `/audit?auth_req_id=${large}`);
    expect(audit.body.events[0]).toMatchObject({ type: 'proposed', detail: { tier: 'high', parties: 'customer role:reviewer:finance', number_matching: true, expires_in: 600 } });
  });

  it('takes the tier’s request expiry as the default and caps requested_expiry with it', async () => {
    await start({ POLICY_FILE: testPolicy(shortTier) });
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') })).body.expires_in).toBe(120);
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2'), requested_expiry: 60 })).body.expires_in).toBe(60);
    expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_3'), requested_expiry: 500 })).body.expires_in).toBe(120);
  });

  it('starts the approval token’s lifetime from the tier at the approval, and refuses it after', async () => {
    await start({ POLICY_FILE: testPolicy(shortTier) });
    const id = (await bcAuthorize(harness, client, { login_hint: customer.sub })).body.auth_req_id;
    expect((await answer(harness, customer, id, { decision: 'approve' })).status).toBe(200);
    const token = await pollToken(harness, client, id);
    expect([token.status, token.body.expires_in]).toEqual([200, 90]);
    const stored = await harness.admin('GET', `/requests/${id}`);
    expect(Date.parse(stored.body.request.approval_expires_at) - Date.parse(stored.body.request.decided_at)).toBe(90_000);
    const agent = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, clientSecret: client.client_secret, fetch: harness.fetch });
    harness.clock.advance(90);
    const late = await agent.redeem(token.body.access_token, payment()).then(
      () => null,
      (error: CountersignError) => error,
    );
    expect(late?.code).toBe('invalid_token');
  });

  it('lets no agent choose its tier: a tier parameter or a tier member in the action is refused, storing nothing', async () => {
    await start();
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    const form = new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()), tier: 'standard' });
    const withParam = await harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
    expect([withParam.status, withParam.body.error]).toEqual([400, 'invalid_request']);
    const withMember = await bcAuthorize(harness, client, { login_hint: customer.sub, details: payment({ amount_minor: 2_000_000, tier: 'standard' }) });
    expect([withMember.status, withMember.body.error]).toEqual([400, 'invalid_authorization_details']);
    expect((await device(harness, customer, 'GET', '/requests')).body.requests).toEqual([]);
  });
});
