import type { SortedWindowEntry, WindowEntry } from './types.ts';

/**
 * The name of an amount as a window can store it: three upper-case letters, which the Redis layout
 * spells without a separator before the amount (`redis-scripts.ts` reads them back as `%u%u%u`).
 * Which names are currencies (ISO 4217) is the caller's rule (policy/limits.ts), not the store's.
 */
const AMOUNT_NAME = /^[A-Z]{3}$/;

function wholeAmounts(label: string, amounts: Record<string, number> | undefined): [string, number][] {
  const entries = Object.entries(amounts ?? {});
  for (const [currency, amount] of entries) {
    if (!AMOUNT_NAME.test(currency)) throw new RangeError(`${label}: ${currency} is not three upper-case letters, as the stored window spells an amount's name`);
    if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`${label}.${currency} must be a non-negative safe integer, got ${amount}`);
  }
  return entries;
}

/**
 * Checks a window's member: not empty, and without a NUL (the Redis window stores an entry as its
 * amounts, a NUL, then the member).
 * @throws RangeError
 */
export function checkWindowMember(member: string): void {
  if (member.length === 0) throw new RangeError('member must not be empty');
  if (member.includes('\0')) throw new RangeError('member must not hold a NUL character');
}

/**
 * Checks a {@link WindowEntry} or a {@link SortedWindowEntry} the same way for both stores, before
 * anything is written: times and counts are safe integers (epoch ms, ms, entries; all but a score
 * ≥ 0), amounts non-negative safe integers under names of three upper-case letters (what the layout
 * can spell), and the member non-empty.
 *
 * @returns the score (`nowMs` unless given) and the amounts and limits as pairs.
 * @throws RangeError naming the argument that is out of range.
 */
export function checkWindowEntry(entry: WindowEntry | SortedWindowEntry): { score: number; amounts: [string, number][]; maxAmounts: [string, number][] } {
  const score = ('score' in entry ? entry.score : undefined) ?? entry.nowMs;
  for (const [name, value] of [
    ['nowMs', entry.nowMs],
    ['windowMs', entry.windowMs],
    ['score', score],
    ['maxCount', entry.maxCount],
  ] as const) {
    if (!Number.isSafeInteger(value) || (name !== 'score' && value < 0)) throw new RangeError(`${name} must be a safe integer${name === 'score' ? '' : ' ≥ 0'}, got ${value}`);
  }
  checkWindowMember(entry.member);
  return { score, amounts: wholeAmounts('amounts', 'amounts' in entry ? entry.amounts : undefined), maxAmounts: wholeAmounts('maxAmounts', 'maxAmounts' in entry ? entry.maxAmounts : undefined) };
}
