/** Policy by blast radius (docs/blast-radius.md): the blast-radius rules a policy file may hold, and the ones it refuses. */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../server/src/policy/index.ts';
import { shippedPolicy } from '../policy-support.ts';
import { problemsOf } from './support.ts';

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
