import { z } from 'zod';
import { displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition, recordName } from './precondition.ts';
import { counted, countText, firstFew } from './words.ts';

/** The most records one deletion may name in `ids` (docs/design.md "Actions"); `count` may be larger. */
export const MAX_NAMED_IDS = 100;
/** The most records one deletion may count: past a billion, "how many" stops meaning anything to a person. */
export const MAX_RECORD_COUNT = 1_000_000_000;

/**
 * The `deletion` authorization details type (docs/design.md "Actions", fixed): delete `count`
 * records of `resource.kind` in `resource.system`, of which `ids` names up to {@link MAX_NAMED_IDS}
 * (each once); `reversible: false` says they cannot be brought back. Unknown members are refused,
 * not dropped.
 *
 * @see RFC 9396 §2
 */
export const deletionDetails = z
  .strictObject({
    type: z.literal('deletion'),
    /** The client's idempotency key for this action. */
    transaction_id: identifier(64),
    resource: z.strictObject({
      /** What kind of record, e.g. `customer`. */
      kind: identifier(64),
      /** The system the records live in, e.g. `crm`. */
      system: identifier(64),
    }),
    /** The records named, in order: at least one, at most {@link MAX_NAMED_IDS}, each once. */
    ids: z.array(recordName).min(1).max(MAX_NAMED_IDS),
    /** How many records are deleted in all: at least the number of `ids`. */
    count: z.number().int().min(1).max(MAX_RECORD_COUNT),
    /** False: the records cannot be restored once deleted. */
    reversible: z.boolean(),
    purpose: displayText(5000),
    /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
    precondition: precondition.optional(),
  })
  .superRefine((details, ctx) => {
    if (new Set(details.ids).size !== details.ids.length) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'each id may be named once' });
    if (details.count < details.ids.length) ctx.addIssue({ code: 'custom', path: ['count'], message: `must be at least the number of ids (${details.ids.length})` });
  });

/** A validated `deletion` action. */
export type DeletionDetails = z.infer<typeof deletionDetails>;

/**
 * What the person sees for a deletion: how many records of which kind in which system, the first
 * few ids and how many more, and "Cannot be undone" when it cannot.
 * Title `Delete 2 customer records in crm`.
 */
export function displayDeletion(details: DeletionDetails): ActionDisplay {
  const { kind, system } = details.resource;
  const what = `${counted(details.count, `${kind} record`)} in ${system}`;
  const named = firstFew(details.ids, details.count);
  return {
    type: 'deletion',
    verb: 'Delete',
    title: `Delete ${what}`,
    summary: `Delete ${what}`,
    ...(details.reversible ? {} : { warnings: ['Cannot be undone'] }),
    records: { kind, system, count: details.count, ids: named.shown, more: named.more, reversible: details.reversible },
    fields: [
      { label: 'Records', value: `${kind} records in ${system}` },
      { label: 'How many', value: countText(details.count) },
      { label: 'Ids', value: named.text },
      { label: 'Undo', value: details.reversible ? 'Can be restored' : 'Cannot be undone' },
      { label: 'Purpose', value: details.purpose },
      { label: 'Transaction', value: details.transaction_id },
      ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
    ],
  };
}
