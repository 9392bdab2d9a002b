/** Policy by blast radius (docs/blast-radius.md): records, recipients, roles and fields raise the tier; reversibility lowers it. */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy, parsePolicy, type Policy } from '../../../server/src/policy/index.ts';
import { accessChange, deletion, message, recordChange } from '../blast-radius-support.ts';
import { pay, shippedPolicy } from '../policy-support.ts';
import { rate } from './support.ts';

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
