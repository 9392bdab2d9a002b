import { describe, expect, it } from 'vitest';
import { approverCoverage, awaitingParties } from './parties.ts';

describe('approverCoverage', () => {
  it('names the roles nobody but the user holds', () => {
    expect(approverCoverage(['reviewer:finance', 'reviewer:risk'], [['cara'], ['rita']], 'cara')).toEqual({ unheld: ['reviewer:finance'], fillable: false });
    expect(approverCoverage(['reviewer:finance'], [[]], 'cara')).toEqual({ unheld: ['reviewer:finance'], fillable: false });
    expect(approverCoverage([], [], 'cara')).toEqual({ unheld: [], fillable: true });
  });

  it('needs a different person for each role, moving an earlier choice when that frees one', () => {
    // rita alone holds both: one person fills one role.
    expect(approverCoverage(['reviewer:finance', 'reviewer:risk'], [['rita'], ['rita']], 'cara')).toEqual({ unheld: [], fillable: false });
    // rita is tried for finance first; risk needs her, so finance moves to rob.
    expect(approverCoverage(['reviewer:finance', 'reviewer:risk'], [['rita', 'rob'], ['rita']], 'cara')).toEqual({ unheld: [], fillable: true });
    // Three roles, two people between them.
    expect(
      approverCoverage(
        ['a', 'b', 'c'],
        [
          ['rita', 'rob'],
          ['rita', 'rob'],
          ['rob', 'rita'],
        ],
        'cara',
      ).fillable,
    ).toBe(false);
  });
});

describe('awaitingParties', () => {
  it('lists the parties without an approval, in the policy’s order', () => {
    const approval = { sub: 'cara', device_id: 'd', credential_id: 'c', at: 0 };
    expect(awaitingParties({ parties: ['customer', 'role:reviewer:finance'], approvals: [] })).toEqual(['customer', 'role:reviewer:finance']);
    expect(awaitingParties({ parties: ['customer', 'role:reviewer:finance'], approvals: [{ ...approval, party: 'customer' }] })).toEqual(['role:reviewer:finance']);
  });
});
