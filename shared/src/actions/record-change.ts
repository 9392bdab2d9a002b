import { z } from 'zod';
import { canonicalize } from '../jcs/canonicalize.ts';
import { unseenProblem } from '../schemas/text.ts';
import { displayName, displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition } from './precondition.ts';
import { displayJsonValue } from './tool-call-display.ts';
import { counted } from './words.ts';

/** The most fields one record change may change. */
export const MAX_CHANGED_FIELDS = 50;

/**
 * A field's value as the executor's system states it: a JSON scalar. A string is kept exactly as
 * sent (it is what gets written, so it is not canonicalised) and refused when it holds what a
 * person cannot see (see `unseenProblem`), at most 1,000 characters; a number may have a fraction
 * (written as RFC 8785 writes it, checked at `/bc-authorize`).
 */
export const fieldValue = z.union(
  [
    z
      .string()
      .max(1000)
      .superRefine((text, ctx) => {
        const problem = unseenProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    z.number(),
    z.boolean(),
    z.null(),
  ],
  {
    // zod 4's number refuses NaN and Infinity as a wrong type (a refine after it never runs), so
    // every option fails alike and the union alone would say "Invalid input": say what it must be.
    error: (issue) => (typeof issue.input === 'number' ? 'must be a finite number' : 'must be a string, a finite number, true, false or null'),
  },
);

/** A text as a person reads it: NFC, each space separator (Zs) as U+0020, one for one (a second space still reads apart). */
function spacesAsOne(text: string): string {
  return text.normalize('NFC').replace(/\p{Zs}/gu, ' ');
}

/** A record's field name: `payout_eur_minor`, `address.city`. */
export const fieldName = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]+$/, 'may hold only letters, digits and _.:-')
  .min(1)
  .max(64);

/**
 * The `record_change` authorization details type (docs/design.md "Actions", fixed): on `record`,
 * set each `changes[].field` from its current value `from` to `to` (each field once, each change a
 * real change a person can see: not between two spellings of one text). With a `precondition` the
 * executor runs it only on the version it was approved against. Unknown members are refused, not
 * dropped.
 *
 * @see RFC 9396 §2
 */
export const recordChangeDetails = z
  .strictObject({
    type: z.literal('record_change'),
    /** The client's idempotency key for this action. */
    transaction_id: identifier(64),
    record: z.strictObject({ kind: identifier(64), id: identifier(128), name: displayName(140).optional() }),
    changes: z
      .array(z.strictObject({ field: fieldName, from: fieldValue, to: fieldValue }))
      .min(1)
      .max(MAX_CHANGED_FIELDS),
    purpose: displayText(5000),
    /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
    precondition: precondition.optional(),
  })
  .superRefine((details, ctx) => {
    const seen = new Set<string>();
    details.changes.forEach((change, i) => {
      if (seen.has(change.field)) ctx.addIssue({ code: 'custom', path: ['changes', i, 'field'], message: 'each field may be changed once' });
      seen.add(change.field);
      if (canonicalize(change.from) === canonicalize(change.to)) ctx.addIssue({ code: 'custom', path: ['changes', i, 'to'], message: 'must differ from from: that changes nothing' });
      // Values are kept as sent, not NFC: canonically equivalent strings (`e` + U+0301 and `é`) draw
      // alike, so the person would approve a change they cannot see. UAX #15: they are one text.
      else if (typeof change.from === 'string' && typeof change.to === 'string' && change.from.normalize('NFC') === change.to.normalize('NFC')) {
        ctx.addIssue({ code: 'custom', path: ['changes', i, 'to'], message: 'must differ from from as a person reads it: the two are the same text in other code points (Unicode normalization)' });
      }
      // A no-break, thin or en space (Zs) draws as a space: `Auto EU` → `Auto\u00a0EU` would show as no change at all.
      else if (typeof change.from === 'string' && typeof change.to === 'string' && spacesAsOne(change.from) === spacesAsOne(change.to)) {
        ctx.addIssue({ code: 'custom', path: ['changes', i, 'to'], message: 'must differ from from as a person reads it: the two differ only in the kind of space, which draws alike' });
      }
    });
  });

/** A validated `record_change` action. */
export type RecordChangeDetails = z.infer<typeof recordChangeDetails>;

/** `before → after` on one line: strings quoted, so `"17"` and `17` read apart. */
function valueText(value: string | number | boolean | null): string {
  return typeof value === 'string' ? JSON.stringify(value) : canonicalize(value);
}

/**
 * What the person sees for a record change: the record (kind, name, id) and a before → after table
 * of each changed field (`changes`; `fields` holds the same, one line per field).
 * Title `Change campaign Auto EU (cmp_4): 2 fields`.
 */
export function displayRecordChange(details: RecordChangeDetails): ActionDisplay {
  const { kind, id, name } = details.record;
  const record = name ? `${kind} ${name} (${id})` : `${kind} ${id}`;
  return {
    type: 'record_change',
    verb: 'Change',
    title: `Change ${record}: ${counted(details.changes.length, 'field')}`,
    summary: `Change ${record}`,
    changes: details.changes.map((change) => ({ field: change.field, from: displayJsonValue(change.from), to: displayJsonValue(change.to) })),
    fields: [
      { label: 'Record', value: record },
      ...details.changes.map((change) => ({ label: change.field, value: `${valueText(change.from)} → ${valueText(change.to)}` })),
      { label: 'Purpose', value: details.purpose },
      { label: 'Transaction', value: details.transaction_id },
      ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
    ],
  };
}
