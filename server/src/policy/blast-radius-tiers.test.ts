import type { AuthorizationDetail } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import type { BlastRadiusRules } from './blast-radius-schema.ts';
import { blastRadiusAsks } from './blast-radius-tiers.ts';

const TIERS = ['standard', 'elevated', 'high'];

function rules(overrides: Partial<BlastRadiusRules>): BlastRadiusRules {
  return { record_tiers: [], recipient_tiers: [], role_tiers: [], field_tiers: [], changed_fields_tiers: [], ...overrides };
}

function grant(toRole: string): AuthorizationDetail {
  return { type: 'access_change', transaction_id: 'acc_1', principal: { id: 'u_9', name: 'Bo Li' }, resource: { id: 'proj_1', name: 'Payments prod' }, from_role: null, to_role: toRole, purpose: 'On-call cover' };
}

function change(field: string): AuthorizationDetail {
  return { type: 'record_change', transaction_id: 'chg_1', record: { kind: 'campaign', id: 'cmp_4' }, changes: [{ field, from: 1, to: 2 }], purpose: 'Raise' };
}

const roleAsk = (pattern: string, role: string) => blastRadiusAsks(rules({ role_tiers: [{ role: pattern, tier: 'high' }] }), [grant(role)], TIERS).length > 0;

describe('role and field patterns', () => {
  it('matches * as any run of characters, case aside, and every other character as itself', () => {
    expect(roleAsk('*admin*', 'Org-ADMIN-ro')).toBe(true);
    expect(roleAsk('*admin*', 'admin')).toBe(true);
    expect(roleAsk('admin', 'admins')).toBe(false);
    expect(roleAsk('billing:*', 'billing:write')).toBe(true);
    expect(roleAsk('billing:*', 'xbilling:write')).toBe(false);
    // `.` is a dot, not any character.
    expect(roleAsk('a.b', 'axb')).toBe(false);
    expect(roleAsk('a.b', 'a.b')).toBe(true);
    expect(roleAsk('*a*b*', 'xaxbx')).toBe(true);
    expect(roleAsk('*a*b*', 'xbxax')).toBe(false);
    expect(roleAsk('**', 'anything')).toBe(true);
    expect(blastRadiusAsks(rules({ field_tiers: [{ field: '*payout*', tier: 'high' }] }), [change('Affiliate.PAYOUT_eur')], TIERS)).toEqual([{ tier: 'high', basis: 'field' }]);
  });

  it('answers at once for a pattern of many stars against a long name that nearly matches (no regular-expression backtracking)', () => {
    // A policy may hold this pattern (letters and *), the agent chooses the role: with a backtracking
    // regular expression one request took seconds per rule, and held the whole server meanwhile.
    const pattern = `${'*a'.repeat(20)}*b`;
    const started = performance.now();
    expect(roleAsk(pattern, 'a'.repeat(64))).toBe(false);
    expect(blastRadiusAsks(rules({ field_tiers: [{ field: pattern, tier: 'high' }] }), [change('a'.repeat(64))], TIERS)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
