import type { Config } from '../config/index.ts';
import type { Tier } from '../policy/index.ts';

/**
 * The request's lifetime: `requested_expiry` when the client sent one, else the tier's expiry
 * (else `REQUEST_EXPIRY_DEFAULT`), never more than the tier's expiry nor `REQUEST_EXPIRY_MAX`.
 */
export function expirySeconds(config: Config, tier: Tier, requested: number | null): number {
  const cap = Math.min(tier.request_expiry_seconds ?? config.requestExpiryMax, config.requestExpiryMax);
  return Math.min(requested ?? tier.request_expiry_seconds ?? config.requestExpiryDefault, cap);
}
