/**
 * Refuses, in both stores alike, what Redis would refuse or read differently: a NaN score, and a
 * range limit that is not a positive whole number (ZRANGE reads a negative count as "all").
 *
 * @throws RangeError
 */
export function checkSortedArguments(score: number, limit?: number): void {
  if (Number.isNaN(score)) throw new RangeError('a sorted-set score must be a number');
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) throw new RangeError(`limit must be a positive whole number, got ${limit}`);
}
