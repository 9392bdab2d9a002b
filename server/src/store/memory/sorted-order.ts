/** The order of a sorted set in memory, shared by the sorted windows and the sorted indexes. */

/** Redis's order of a sorted set: by score, then by member (byte order, the same for ASCII members). */
export function compareEntries(a: { score: number; member: string }, b: { score: number; member: string }): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

/** The first index of `order` whose entry does not sort before `probe` (binary search). */
export function lowerBound(order: { score: number; member: string }[], probe: { score: number; member: string }): number {
  let [low, high] = [0, order.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEntries(order[middle]!, probe) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
