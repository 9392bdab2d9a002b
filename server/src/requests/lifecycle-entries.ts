import type { Fields } from '../store/index.ts';
import { TRANSITIONS, type Transition } from './lifecycle-transitions.ts';

/*
 * A transition's outbox entry lives in its request's own hash, as `ob:<seq>` → the JSON of the
 * {@link Transition}, written in the same atomic step as the swap (`outbox.ts` delivers and deletes it).
 */

/** The outbox field of the creation's entry: `ob:0` (transitions after it count `seq` from 1). */
export const PROPOSE_SEQ = 0;

/** The hash field of the outbox entry with sequence number `seq`. */
export function outboxField(seq: number): string {
  return `ob:${seq}`;
}

/** The outbox entries a record holds, oldest first, each with its sequence number. Unreadable ones are skipped. */
export function outboxOf(fields: Fields): { seq: number; transition: Transition }[] {
  const entries: { seq: number; transition: Transition }[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const match = /^ob:(\d{1,9})$/.exec(field);
    if (!match) continue;
    const transition = parseTransition(value);
    if (transition) entries.push({ seq: Number(match[1]), transition });
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

function parseTransition(text: string): Transition | null {
  try {
    const value = JSON.parse(text) as Transition;
    return value && typeof value === 'object' && value.op in TRANSITIONS && Number.isSafeInteger(value.at) ? value : null;
  } catch {
    return null;
  }
}
