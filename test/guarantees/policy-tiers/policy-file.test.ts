/** Policy in one place (docs/guarantees.md "Policy tiers"): the policy file, its shipped default and the policies it refuses. */
import { describe, expect, it } from 'vitest';
import { decideTier, loadPolicy, parsePolicy, storedPolicySchema } from '../../../server/src/policy/index.ts';
import { authorizationDetails } from '@countersign/shared';
import { createHarness } from '../../support/harness.ts';
import { payment } from '../../support/payment.ts';
import { policyFile, shippedPolicy } from '../policy-support.ts';

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
