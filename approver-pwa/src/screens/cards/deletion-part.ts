import { countText, type ActionDisplay, type DisplayRecords } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { bigFigure, fieldsLabelled, labelledList, type CardPart } from './card-part.ts';

/** The deletion's lines this part shows itself (deletion.ts in shared). `Undo` only when a warning says it. */
const COVERED = ['Records', 'How many', 'Ids'];

/**
 * A deletion: how many records in all, large (as an amount is); what kind, in which system; the
 * ids the server names (its first few) and "and N more". Whether it can be undone is said by the
 * card's warning when it cannot, and here when it can.
 */
export function deletionPart(action: ActionDisplay): CardPart | null {
  const records = action.records;
  if (!records) return null;
  const warned = !records.reversible && (action.warnings?.length ?? 0) > 0;
  const covered = fieldsLabelled(action, warned ? [...COVERED, 'Undo'] : COVERED);
  const element = h(
    'div',
    { class: 'part part-deletion', testid: 'records', attrs: { 'data-reversible': records.reversible } },
    bigFigure({ label: 'Records to delete', text: countText(records.count), count: records.count, testid: 'record-count', under: what(records) }),
    records.ids.length > 0
      ? labelledList({
          label: records.more > 0 ? `Named (first ${countText(records.ids.length)})` : 'Named',
          items: records.ids,
          testid: 'record-ids',
          code: true,
          after: records.more > 0 ? h('p', { class: 'part-more', testid: 'record-more' }, `and ${countText(records.more)} more`) : null,
        })
      : null,
  );
  return { element, covered };
}

/** `customer records in crm`: the kind and the system, each marked so the eye finds them. */
function what(records: DisplayRecords): HTMLElement {
  return h('p', { class: 'figure-under' }, h('strong', { testid: 'record-kind' }, records.kind), records.count === 1 ? ' record in ' : ' records in ', h('strong', { testid: 'record-system' }, records.system));
}
