import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unreachableEscalation } from './escalation-schema.ts';
import { parsePolicy } from './load-policy.ts';

/** The shipped policy with its `elevated` tier (the customer alone, 300 s) given `escalation`. */
function withChain(escalation: unknown, change: (tier: any) => void = () => {}): unknown {
  const policy = JSON.parse(readFileSync(new URL('./default-policy.json', import.meta.url), 'utf8'));
  const tier = policy.tiers.find((candidate: { name: string }) => candidate.name === 'elevated');
  tier.escalation = escalation;
  change(tier);
  return policy;
}

/** The problems `parsePolicy` names, one per line, without the heading. */
function problems(document: unknown): string[] {
  try {
    parsePolicy(document);
    return [];
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

describe('a tier’s escalation chain', () => {
  it('takes ascending windows inside the tier’s request expiry, each to a new role', () => {
    const policy = parsePolicy(
      withChain([
        { after_seconds: 60, to: { role: 'ops' } },
        { after_seconds: 180, to: { role: 'manager:payments' } },
      ]),
    );
    expect(policy.tiers[1]!.escalation).toEqual([
      { after_seconds: 60, to: { role: 'ops' } },
      { after_seconds: 180, to: { role: 'manager:payments' } },
    ]);
  });

  it('refuses windows that do not ascend', () => {
    expect(
      problems(
        withChain([
          { after_seconds: 120, to: { role: 'ops' } },
          { after_seconds: 120, to: { role: 'manager' } },
        ]),
      ),
    ).toEqual(['tiers.1.escalation.1.after_seconds: windows must ascend: each step is seconds after the request was made']);
  });

  it('refuses a window at or past the tier’s request expiry, and a chain without one', () => {
    expect(problems(withChain([{ after_seconds: 300, to: { role: 'ops' } }]))).toEqual(['tiers.1.escalation.0.after_seconds: must be less than request_expiry_seconds (300): the request would be over before this step']);
    expect(problems(withChain([{ after_seconds: 60, to: { role: 'ops' } }], (tier) => delete tier.request_expiry_seconds))).toEqual(['tiers.1.request_expiry_seconds: a tier with escalation must set request_expiry_seconds: the last window ends there']);
  });

  it('refuses a malformed role, a role asked twice, unknown fields and an empty chain', () => {
    expect(problems(withChain([{ after_seconds: 60, to: { role: 'Ops{x}' } }]))).toEqual(['tiers.1.escalation.0.to.role: must look like reviewer:finance (lower-case letters, digits, -)']);
    expect(
      problems(
        withChain([
          { after_seconds: 60, to: { role: 'ops' } },
          { after_seconds: 90, to: { role: 'ops' } },
        ]),
      ),
    ).toEqual(['tiers.1.escalation.1.to.role: each step hands the request to a role not asked before']);
    expect(problems(withChain([{ after_seconds: 60, to: { role: 'ops' }, notify: 'all' }]))[0]).toMatch(/^tiers\.1\.escalation\.0: Unrecognized key: "notify"/);
    expect(problems(withChain([{ after_seconds: 60, to: 'ops' }]))[0]).toMatch(/^tiers\.1\.escalation\.0\.to: /);
    expect(problems(withChain([]))[0]).toMatch(/^tiers\.1\.escalation: /);
    expect(problems(withChain([{ after_seconds: 0, to: { role: 'ops' } }]))[0]).toMatch(/^tiers\.1\.escalation\.0\.after_seconds: /);
  });

  it('refuses a chain on a tier of several approvers: a step could turn two approvals into one', () => {
    expect(problems(withChain([{ after_seconds: 60, to: { role: 'ops' } }], (tier) => (tier.approvers = ['customer', { role: 'reviewer:finance' }])))).toEqual(['tiers.1.escalation: a tier with escalation names exactly one approver: the chain hands that approval on']);
    expect(problems(withChain([{ after_seconds: 60, to: { role: 'reviewer:finance' } }], (tier) => (tier.approvers = [{ role: 'reviewer:finance' }])))).toEqual(['tiers.1.escalation.0.to.role: each step hands the request to a role not asked before']);
  });
});

describe('an escalation step past the server’s REQUEST_EXPIRY_MAX', () => {
  it('is named with its path: no request lives long enough for it', () => {
    const policy = parsePolicy(
      withChain(
        [
          { after_seconds: 60, to: { role: 'ops' } },
          { after_seconds: 700, to: { role: 'manager' } },
        ],
        (tier) => (tier.request_expiry_seconds = 3600),
      ),
    );
    expect(unreachableEscalation(policy.tiers, 600)).toEqual([{ path: ['tiers', 1, 'escalation', 1, 'after_seconds'], message: 'must be less than 600 s, the longest a request lives on this server (REQUEST_EXPIRY_MAX): no request would last until this step' }]);
    expect(unreachableEscalation(policy.tiers, 3600)).toEqual([]);
  });
});
