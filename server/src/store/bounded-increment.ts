import type { BoundedIncrement } from './record-store.ts';

/**
 * Checks a compare-and-set's bounded increments (`CompareAndSetOptions.increments`) before either
 * store runs them, so both refuse the same input the same way.
 * @returns the increments, `[]` when none.
 * @throws RangeError when a field is empty or written twice, `by` is not a safe integer ≥ 0, or `max` not a safe integer.
 */
export function checkIncrements(increments: BoundedIncrement[] | undefined): BoundedIncrement[] {
  if (!increments) return [];
  const fields = new Set<string>();
  for (const inc of increments) {
    if (inc.field === '' || fields.has(inc.field)) throw new RangeError(`an increment's field must be a distinct, non-empty name: ${JSON.stringify(inc.field)}`);
    if (!Number.isSafeInteger(inc.by) || inc.by < 0) throw new RangeError(`an increment's by must be a safe integer >= 0: ${inc.by}`);
    if (!Number.isSafeInteger(inc.max)) throw new RangeError(`an increment's max must be a safe integer: ${inc.max}`);
    fields.add(inc.field);
  }
  return increments;
}
