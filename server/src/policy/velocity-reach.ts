import type { WindowResult } from '../store/index.ts';

/**
 * The names under which a velocity window totals what a request reaches besides money: records
 * deleted (`ZZR`) and people messaged (`ZZM`). A window totals whole numbers under names of three
 * upper-case letters (`Store.windowAdd`), so these ride in the same atomic step as the count and
 * the money, on both stores, with no second key. `ZZ` is a user-assigned code of ISO 3166-1, which
 * ISO 4217 builds its codes from, so no currency is or will be named `ZZ?`; `isCurrencyCode` refuses
 * them, so a policy cannot list them as currencies and no amount of money lands under them.
 */
export const REACH_NAMES = { records: 'ZZR', recipients: 'ZZM' } as const;

/** A request's reach as a velocity window weighs it: only the measures above 0. */
export function reachAmounts(input: { records?: number | undefined; recipients?: number | undefined }): Record<string, number> {
  const amounts: Record<string, number> = {};
  if (input.records) amounts[REACH_NAMES.records] = input.records;
  if (input.recipients) amounts[REACH_NAMES.recipients] = input.recipients;
  return amounts;
}

/** A velocity window's `max_records` and `max_recipients` as window limits; unset ones are not limited. */
export function reachLimits(limit: { max_records?: number | undefined; max_recipients?: number | undefined }): Record<string, number> {
  const limits: Record<string, number> = {};
  if (limit.max_records !== undefined) limits[REACH_NAMES.records] = limit.max_records;
  if (limit.max_recipients !== undefined) limits[REACH_NAMES.recipients] = limit.max_recipients;
  return limits;
}

/**
 * What a refused velocity window ran out of, in words for `error_description`: `requests` (the
 * count), `records to delete` or `recipients` (with the limit), else `requests, or too much money`.
 * The window answers only `count` or `amount`; which total it was is read back from its totals.
 */
export function velocityRefusalReason(result: WindowResult | undefined, amounts: Record<string, number>, maxAmounts: Record<string, number>): string {
  if (result?.exceeded === 'count') return 'requests';
  const over = (name: string) => maxAmounts[name] !== undefined && (result?.totals[name] ?? 0) + (amounts[name] ?? 0) > maxAmounts[name];
  if (result && over(REACH_NAMES.records)) return `records to delete (at most ${maxAmounts[REACH_NAMES.records]})`;
  if (result && over(REACH_NAMES.recipients)) return `recipients (at most ${maxAmounts[REACH_NAMES.recipients]})`;
  return 'requests, or too much money,';
}
