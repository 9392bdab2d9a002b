import type { ThrottleRule } from './types.ts';

/**
 * Checks a {@link ThrottleRule} the same way for both stores, before anything is read: whole
 * numbers only, since the Redis script writes them with `%d`.
 *
 * @throws RangeError when `nowMs`, `defaultInterval`, `earlyIncrement` or `leewayMs` is not a safe
 *   integer ≥ 0, `unitMs` not a safe integer ≥ 1, or a field name is empty or both are the same.
 */
export function checkThrottleRule(rule: ThrottleRule): Required<ThrottleRule> {
  const leewayMs = rule.leewayMs ?? 0;
  for (const [name, value, min] of [
    ['nowMs', rule.nowMs, 0],
    ['unitMs', rule.unitMs, 1],
    ['defaultInterval', rule.defaultInterval, 0],
    ['earlyIncrement', rule.earlyIncrement, 0],
    ['leewayMs', leewayMs, 0],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a safe integer ≥ ${min}, got ${value}`);
  }
  if (rule.intervalField === '' || rule.nextAtField === '' || rule.intervalField === rule.nextAtField) throw new RangeError('a throttle needs two distinct, non-empty field names');
  return { ...rule, leewayMs };
}
