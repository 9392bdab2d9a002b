import type { ActionDisplay, DisplayChange, DisplayValue } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { argumentValue } from '../tool-arguments.ts';
import type { CardPart } from './card-part.ts';

/**
 * A record change: a before → after table of each changed field (`<th scope>` headers: Field,
 * Now, After), placed where the server's one-line-per-field lines were, right after `Record`.
 * Text is shown in quotes and numbers, true, false and null in code type without, so `"17"` and
 * `17` read apart, as they are different values to the system that writes them.
 */
export function recordChangePart(action: ActionDisplay): CardPart | null {
  const changes = action.changes;
  if (!changes || changes.length === 0) return null;
  const element = h(
    'div',
    { class: 'part part-changes' },
    h(
      'table',
      { class: 'changes', testid: 'changes' },
      h('caption', { class: 'part-label' }, changes.length === 1 ? '1 field changes' : `${changes.length} fields change`),
      h('thead', {}, h('tr', {}, h('th', { attrs: { scope: 'col' } }, 'Field'), h('th', { attrs: { scope: 'col' } }, 'Now'), h('th', { attrs: { scope: 'col' } }, 'After'))),
      h('tbody', {}, ...changes.map(changeRow)),
    ),
  );
  return { element, covered: changeLines(action, changes) };
}

function changeRow(change: DisplayChange): HTMLElement {
  return h(
    'tr',
    { testid: 'change', attrs: { 'data-field': change.field } },
    h('th', { class: 'change-field', attrs: { scope: 'row' } }, change.field),
    h('td', { class: 'change-from', testid: 'change-from', attrs: { 'data-kind': change.from.kind } }, cellValue(change.from)),
    h('td', { class: 'change-to', testid: 'change-to', attrs: { 'data-kind': change.to.kind } }, cellValue(change.to)),
  );
}

/** A value in a cell: text in quotes (folded when long, with all of it a tap away), anything else as `argumentValue` writes it. */
function cellValue(value: DisplayValue): HTMLElement {
  if (value.kind === 'text' && !value.folded) return h('span', { class: 'value-text' }, `"${value.full}"`);
  return argumentValue(value);
}

/**
 * The server's line for each change (its label is the field's name, `before → after`), matched in
 * order: a changed field may be named like another line (`Purpose`), and the change lines come
 * first, so the first match after the previous one is the change's.
 */
function changeLines(action: ActionDisplay, changes: readonly DisplayChange[]): Set<number> {
  const covered = new Set<number>();
  let next = 0;
  action.fields.forEach((field, index) => {
    if (next < changes.length && field.label === changes[next]!.field && field.value.includes('→')) {
      covered.add(index);
      next++;
    }
  });
  return covered;
}
