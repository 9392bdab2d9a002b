import { keys } from '@countersign/server';
import type { AuthorizationDetails } from '@countersign/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decideTier, loadPolicy, parsePolicy, REACH_NAMES, type Policy } from '../../server/src/policy/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { accessChange, deletion, message, recordChange } from './blast-radius-support.ts';
import { answer, bcAuthorize, enrollWithRoles, pay, pollToken, shippedPolicy, testPolicy } from './policy-support.ts';

/** The problems `parsePolicy` names for a document, one per line, or [] when it is valid. */
function problemsOf(document: unknown): string[] {
  try {
    parsePolicy(document, 'p.json');
    return [];
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

/** The tier name and basis decided for `details`. */
const rate = (policy: Policy, details: AuthorizationDetails) => {
  const decided = decideTier(policy, details);
  return [decided.tier.name, decided.basis];
};

/** Policy by blast radius (docs/blast-radius.md): records, recipients, roles and fields raise the tier; reversibility lowers it. */
describe('tiers by blast radius (the shipped policy, through decideTier)', () => {
  let policy: Policy;
  /** The shipped policy with every floor at `standard`, so each threshold shows on its own. */
  let milder: Policy;
  beforeAll(async () => {
    policy = await loadPolicy();
    const document = shippedPolicy();
    document.floors.reversibility.irreversible = 'standard';
    milder = parsePolicy(document);
  });

  it('rates a deletion by its record count: 10,000 or more needs the reviewer tier; any irreversible one is at least elevated', () => {
    expect(rate(policy, deletion(1))).toEqual(['elevated', 'reversibility']);
    expect(rate(policy, deletion(9_999))).toEqual(['elevated', 'reversibility']);
    expect(rate(policy, deletion(10_000))).toEqual(['high', 'record_count']);
    expect(rate(policy, deletion(10_001))).toEqual(['high', 'record_count']);
    // The 100-record step, where no floor hides it.
    expect(rate(milder, deletion(99))).toEqual(['standard', 'lowest']);
    expect(rate(milder, deletion(100))).toEqual(['elevated', 'record_count']);
    expect(rate(milder, deletion(101))).toEqual(['elevated', 'record_count']);
  });

  it('rates a reversible deletion one tier milder, by the reversible floor, and never below what another rule asks for', () => {
    const reversible = (count: number) => deletion(count, { reversible: true });
    expect(rate(policy, reversible(99))).toEqual(['standard', 'lowest']);
    expect(rate(policy, reversible(100))).toEqual(['standard', 'lowest']);
    expect(rate(policy, reversible(9_999))).toEqual(['standard', 'lowest']);
    expect(rate(policy, reversible(10_000))).toEqual(['elevated', 'record_count']);
    // One irreversible deletion in the request: rated as irreversible, in full, on the total count.
    expect(rate(policy, [...reversible(9_999), ...deletion(1, { transaction_id: 'del_89' })])).toEqual(['high', 'record_count']);
    // The lowering is the deletion's own: a payment of EUR 10,000.00 beside it still asks for high.
    expect(rate(policy, [...reversible(10), ...pay('txn_1', 1_000_000)])).toEqual(['high', 'amount']);
    // Nor below the type's blast-radius floor.
    const wide = shippedPolicy();
    wide.types.deletion.blast_radius = 'all';
    expect(rate(parsePolicy(wide), reversible(10))).toEqual(['high', 'blast_radius']);
    // A drop larger than the tiers stops at the mildest one.
    const steep = shippedPolicy();
    steep.types.deletion.reversible_tier_drop = 9;
    expect(rate(parsePolicy(steep), reversible(50_000))).toEqual(['standard', 'lowest']);
  });

  it('adds up the records of every deletion in a request: splitting one does not lower it', () => {
    expect(rate(policy, [...deletion(5_000), ...deletion(5_000, { transaction_id: 'del_89' })])).toEqual(['high', 'record_count']);
    expect(rate(policy, [...deletion(4_999), ...deletion(5_000, { transaction_id: 'del_89' })])).toEqual(['elevated', 'reversibility']);
  });

  it('rates a message by its recipients: 100,000 or more needs the reviewer tier', () => {
    expect(rate(policy, message(1))).toEqual(['elevated', 'reversibility']);
    expect(rate(policy, message(99_999))).toEqual(['elevated', 'reversibility']);
    expect(rate(policy, message(100_000))).toEqual(['high', 'recipients']);
    expect(rate(policy, message(100_001))).toEqual(['high', 'recipients']);
    expect(rate(policy, [...message(50_000), ...message(50_000, { transaction_id: 'msg_6' })])).toEqual(['high', 'recipients']);
    expect(rate(milder, message(999))).toEqual(['standard', 'lowest']);
    expect(rate(milder, message(1_000))).toEqual(['elevated', 'recipients']);
    expect(rate(milder, message(1_001))).toEqual(['elevated', 'recipients']);
  });

  it('rates an access change by the role it grants: admin or owner needs the reviewer tier, whatever its case or prefix', () => {
    expect(rate(policy, accessChange(null, 'viewer'))).toEqual(['standard', 'lowest']);
    expect(rate(policy, accessChange(null, 'admin'))).toEqual(['high', 'role']);
    expect(rate(policy, accessChange('viewer', 'admin'))).toEqual(['high', 'role']);
    expect(rate(policy, accessChange('viewer', 'Admin'))).toEqual(['high', 'role']);
    expect(rate(policy, accessChange(null, 'billing:admin'))).toEqual(['high', 'role']);
    expect(rate(policy, accessChange('admin', 'owner'))).toEqual(['high', 'role']);
    // A revocation is rated by the floors (and `revoke_tier` when the policy sets one).
    expect(rate(policy, accessChange('admin', null))).toEqual(['standard', 'lowest']);
    expect(rate(policy, accessChange('admin', 'viewer'))).toEqual(['standard', 'lowest']);
    const revocations = shippedPolicy();
    revocations.types.access_change.revoke_tier = 'elevated';
    expect(rate(parsePolicy(revocations), accessChange('admin', null))).toEqual(['elevated', 'role']);
    expect(rate(parsePolicy(revocations), accessChange(null, 'viewer'))).toEqual(['standard', 'lowest']);
  });

  it('rates a record change by the fields it names: a payout needs the reviewer tier; by how many, where the policy says', () => {
    expect(rate(policy, recordChange(['status']))).toEqual(['standard', 'lowest']);
    expect(rate(policy, recordChange(['payout_eur_minor']))).toEqual(['high', 'field']);
    expect(rate(policy, recordChange(['status', 'Payout_EUR_Minor']))).toEqual(['high', 'field']);
    expect(rate(policy, recordChange(['affiliate.payout']))).toEqual(['high', 'field']);
    // Access granted by editing a record is rated as access: a role, permission or admin field needs the reviewer too.
    for (const field of ['role', 'user.Role', 'permissions', 'is_admin']) expect(rate(policy, recordChange([field]))).toEqual(['high', 'field']);
    const many = shippedPolicy();
    many.types.record_change.changed_fields_tiers = [{ from_count: 3, tier: 'elevated' }];
    const counted = parsePolicy(many);
    expect(rate(counted, recordChange(['a', 'b']))).toEqual(['standard', 'lowest']);
    expect(rate(counted, recordChange(['a', 'b', 'c']))).toEqual(['elevated', 'changed_fields']);
    expect(rate(counted, [...recordChange(['a', 'b']), ...recordChange(['c'], { transaction_id: 'chg_13' })])).toEqual(['elevated', 'changed_fields']);
  });

  it('leaves payments and tool calls as they were', () => {
    expect(rate(policy, pay('txn_1', 99_999))).toEqual(['standard', 'lowest']);
    expect(rate(policy, pay('txn_1', 100_000))).toEqual(['elevated', 'amount']);
  });
});

describe('blast-radius rules in the policy file', () => {
  it('refuses a rule on another type, an unknown tier, thresholds out of order and a name given twice, naming each', () => {
    const broken = shippedPolicy();
    broken.types.message.record_tiers = [{ from_count: 10, tier: 'elevated' }];
    broken.types.deletion.record_tiers = [
      { from_count: 500, tier: 'elevated' },
      { from_count: 500, tier: 'nope' },
    ];
    broken.types.payment.role_tiers = [{ role: 'admin', tier: 'high' }];
    broken.types.access_change.role_tiers = [
      { role: 'admin', tier: 'high' },
      { role: 'ADMIN', tier: 'elevated' },
    ];
    broken.types.deletion.revoke_tier = 'high';
    broken.types.record_change.field_tiers = [{ field: 'payout', tier: 'highest' }];
    broken.types.record_change.reversible_tier_drop = 1;
    expect(problemsOf(broken)).toEqual([
      'types.payment.role_tiers: only access_change is rated by role_tiers',
      'types.deletion.revoke_tier: only access_change is rated by revoke_tier',
      'types.deletion.record_tiers.1.tier: no tier named nope',
      'types.deletion.record_tiers.1: thresholds must ascend',
      'types.message.record_tiers: only deletion is rated by record_tiers',
      'types.access_change.role_tiers.1: ADMIN is named twice',
      'types.record_change.reversible_tier_drop: only deletion is rated by reversible_tier_drop',
      'types.record_change.field_tiers.0.tier: no tier named highest',
    ]);
  });

  it('refuses a reversible_as less reversible than the type itself: reversibility only lowers', () => {
    const raising = shippedPolicy();
    raising.types.deletion.reversibility = 'costly';
    raising.types.deletion.reversible_as = 'irreversible';
    expect(problemsOf(raising)).toEqual(["types.deletion.reversible_as: must be at least as reversible as the type's reversibility (costly): reversibility lowers a tier, never raises it"]);
  });

  it('refuses malformed values: a zero count, a pattern with a space, a drop of ten, a velocity cap of zero', () => {
    const malformed = shippedPolicy();
    malformed.types.deletion.record_tiers[0].from_count = 0;
    malformed.types.deletion.reversible_tier_drop = 10;
    malformed.types.record_change.field_tiers = [{ field: 'pay out', tier: 'high' }];
    malformed.limits.velocity.per_user.max_records = 0;
    malformed.limits.velocity.per_client.max_recipients = 1.5;
    const problems = problemsOf(malformed).join('\n');
    for (const path of ['types.deletion.record_tiers.0.from_count', 'types.deletion.reversible_tier_drop', 'types.record_change.field_tiers.0.field', 'limits.velocity.per_user.max_records', 'limits.velocity.per_client.max_recipients']) {
      expect(problems).toContain(`${path}: `);
    }
    expect(problems).toContain('may hold only letters, digits, ._:- and * (any run of characters)');
  });

  it('ships defaults that validate, and accepts a policy without any blast-radius rule', async () => {
    const policy = await loadPolicy();
    expect(policy.types.deletion).toMatchObject({
      record_tiers: [
        { from_count: 100, tier: 'elevated' },
        { from_count: 10_000, tier: 'high' },
      ],
      reversible_as: 'reversible',
      reversible_tier_drop: 1,
    });
    expect(policy.limits.velocity.per_user).toMatchObject({ window_seconds: 3600, max_records: 100_000, max_recipients: 1_000_000 });
    const bare = shippedPolicy();
    for (const type of Object.values(bare.types) as Record<string, unknown>[]) for (const member of ['record_tiers', 'reversible_as', 'reversible_tier_drop', 'recipient_tiers', 'role_tiers', 'field_tiers']) delete type[member];
    expect(problemsOf(bare)).toEqual([]);
  });
});

type Client = { client_id: string; client_secret: string };

describe('a blast-radius tier on the test server (memory store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let reviewer: EnrolledUser;
  let client: Client;

  afterEach(() => harness.close());
  async function start() {
    harness = await createHarness({ env: { POLICY_FILE: testPolicy() } });
    customer = await harness.enrollUser('customer_1');
    reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);
    client = await harness.createClient('Ops agent');
  }
  const ask = (details: AuthorizationDetails) => bcAuthorize(harness, client, { login_hint: customer.sub, details });
  const stored = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request;

  it.each([
    ['a deletion of 10,000 records', deletion(10_000), 'high'],
    ['a reversible deletion of 10,000 records', deletion(10_000, { reversible: true }), 'elevated'],
    ['a reversible deletion of 9,999 records', deletion(9_999, { reversible: true }), 'standard'],
    ['a message to 100,000 recipients', message(100_000), 'high'],
    ['a message to 99,999 recipients', message(99_999), 'elevated'],
    ['a grant of admin', accessChange(null, 'admin'), 'high'],
    ['a change of a payout', recordChange(['payout_eur_minor']), 'high'],
    ['a change of a status', recordChange(['status']), 'standard'],
  ])('stores %s with its tier, its approvers and number matching as that tier says', async (_name, details, tier) => {
    await start();
    const asked = await ask(details);
    expect(asked.status).toBe(200);
    const request = await stored(asked.body.auth_req_id);
    const parties = { standard: ['customer'], elevated: ['customer'], high: ['customer', 'role:reviewer:finance'] }[tier];
    expect([request.tier, request.parties]).toEqual([tier, parties]);
    if (tier === 'standard') expect(asked.body).not.toHaveProperty('binding_code');
    else expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
  });

  it.each([
    ['a grant of admin', accessChange(null, 'admin')],
    ['a change of payout_eur_minor', recordChange(['payout_eur_minor', 'status'])],
  ])('leaves %s pending after the customer’s approval alone; the reviewer’s makes it approved', async (_name, details) => {
    await start();
    const asked = await ask(details);
    const id = asked.body.auth_req_id;
    const first = await answer(harness, customer, id, { decision: 'approve', code: asked.body.binding_code });
    expect(first.body.request).toMatchObject({
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await pollToken(harness, client, id)).body.error).toBe('authorization_pending');
    expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await pollToken(harness, client, id)).status).toBe(200);
  });
});

describe.each(['memory', 'redis'] as const)('velocity by records and recipients (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;

  afterEach(() => harness.close());
  async function start(limits: { per_user?: object; per_client?: object }) {
    const policy = testPolicy((p) => {
      Object.assign(p.limits.velocity.per_user, limits.per_user);
      Object.assign(p.limits.velocity.per_client, limits.per_client);
    });
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policy } });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Cleanup agent');
  }
  const ask = (details: AuthorizationDetails, as: Client = client) => bcAuthorize(harness, as, { login_hint: customer.sub, details });
  /** The user's velocity window as it stands, read without adding to it (an offer that cannot fit). */
  const userWindow = () => harness.store.windowAdd(keys.window('default', 'velocity-user', customer.sub), { nowMs: harness.clock.now(), windowMs: 3_600_000, member: '-', maxCount: 0 });

  it('refuses many small deletions once the user’s window holds max_records, and lets them through once the window has passed', async () => {
    await start({ per_user: { max_records: 1_000 } });
    // Twenty deletions of 50 records each: small ones (standard, reversible), a thousand in all.
    for (let i = 0; i < 20; i++) expect((await ask(deletion(50, { transaction_id: `del_${i}`, reversible: true }))).status).toBe(200);
    const refused = await ask(deletion(1, { transaction_id: 'del_20', reversible: true }));
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toBe('Too many records to delete (at most 1000) for this user within 3600 seconds.');
    expect(await userWindow()).toMatchObject({ count: 20, totals: { [REACH_NAMES.records]: 1_000 } });
    // What reaches no records still fits: a message, a payment.
    expect((await ask(message(10))).status).toBe(200);
    expect((await ask(pay('txn_1'))).status).toBe(200);
    harness.clock.advance(3_599);
    expect((await ask(deletion(1, { transaction_id: 'del_20', reversible: true }))).status).toBe(429);
    harness.clock.advance(1);
    expect((await ask(deletion(1_000, { transaction_id: 'del_20', reversible: true }))).status).toBe(200);
    expect((await userWindow()).totals[REACH_NAMES.records]).toBe(1_000);
  });

  it('refuses one deletion larger than the cap, and counts the records of every deletion in a request', async () => {
    await start({ per_user: { max_records: 1_000 } });
    expect((await ask(deletion(1_001, { reversible: true }))).body.error).toBe('velocity_exceeded');
    expect((await userWindow()).count).toBe(0);
    expect((await ask([...deletion(600, { reversible: true }), ...deletion(400, { transaction_id: 'del_89', reversible: true })])).status).toBe(200);
    expect((await ask(deletion(1, { transaction_id: 'del_90', reversible: true }))).body.error).toBe('velocity_exceeded');
  });

  it('refuses messages once the client’s window holds max_recipients, across users, and lets them through once it has passed', async () => {
    await start({ per_client: { max_recipients: 5_000, window_seconds: 600 } });
    const second = await harness.enrollUser('customer_2');
    for (let i = 0; i < 5; i++) {
      const sub = i % 2 === 0 ? customer.sub : second.sub;
      expect((await bcAuthorize(harness, client, { login_hint: sub, details: message(1_000, { transaction_id: `msg_${i}` }) })).status).toBe(200);
    }
    const refused = await ask(message(1, { transaction_id: 'msg_5' }));
    expect([refused.status, refused.body.error]).toEqual([429, 'velocity_exceeded']);
    expect(refused.body.error_description).toBe('Too many recipients (at most 5000) from this client within 600 seconds.');
    // Another client's window is its own.
    expect((await ask(message(1, { transaction_id: 'msg_5' }), await harness.createClient('Other agent'))).status).toBe(200);
    harness.clock.advance(600);
    expect((await ask(message(5_000, { transaction_id: 'msg_6' }))).status).toBe(200);
  });

  it('gives a denied deletion’s records back to the user’s window', async () => {
    await start({ per_user: { max_records: 1_000 } });
    const asked = await ask(deletion(1_000, { reversible: true }));
    expect((await ask(deletion(1, { transaction_id: 'del_89', reversible: true }))).body.error).toBe('velocity_exceeded');
    expect((await answer(harness, customer, asked.body.auth_req_id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await ask(deletion(1, { transaction_id: 'del_89', reversible: true }))).status).toBe(200);
  });
});
