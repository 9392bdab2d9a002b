/** Policy tiers (docs/guarantees.md "Policy tiers"): a tier from the amount per currency, reversibility and blast radius. */
import { describe, expect, it } from 'vitest';
import { decideTier, loadPolicy, parsePolicy, type Policy } from '../../../server/src/policy/index.ts';
import { payment } from '../../support/payment.ts';
import { pay, shippedPolicy } from '../policy-support.ts';

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
