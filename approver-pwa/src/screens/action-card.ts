import type { ActionDisplay } from '@countersign/shared';
import { h } from '../ui/dom.ts';
import { accessPart } from './cards/access-part.ts';
import type { CardPart } from './cards/card-part.ts';
import { deletionPart } from './cards/deletion-part.ts';
import { mandatePart } from './cards/mandate-part.ts';
import { messagePart } from './cards/message-part.ts';
import { recordChangePart } from './cards/record-change-part.ts';
import { warningNotes } from './cards/warnings.ts';
import { argumentMembers } from './tool-arguments.ts';
import './cards/cards.css';

/** Test ids the screen uses for itself; a field with one of these labels gets a `field-` prefix. */
const RESERVED_TESTIDS = new Set(['amount', 'client-name', 'binding-message', 'time-left', 'result', 'approve', 'deny', 'report', 'tier', 'approvals', 'approval', 'warning', 'records', 'message', 'access', 'changes', 'change', 'totals', 'total', 'mandate']);

/** The `data-testid` of a field from its label: `Payee` → `payee`, `Reference no.` → `reference-no`. */
export function fieldTestId(label: string): string {
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'field';
  return RESERVED_TESTIDS.has(slug) ? `field-${slug}` : slug;
}

/** The structured part of each type that has one (see `cards/`); payments and tool calls have theirs below. */
const PARTS: Record<string, (action: ActionDisplay) => CardPart | null> = {
  deletion: deletionPart,
  message: messagePart,
  access_change: accessPart,
  record_change: recordChangePart,
  mandate: mandatePart,
};

/**
 * One action as the server computed it: its warnings first (`Cannot be undone`), then the amount
 * large, once, in the server's one notation (ISO code first, so EUR and USD can't be mistaken;
 * a second, symbol form under it read as a second amount to people trying it), then
 * every field in the server's order; a tool call's arguments as nested lists, long strings folded
 * with the full text one tap away. A deletion, a message, an access change, a record change and a
 * mandate show their structured part (how many records, the message as sent, `viewer → admin`, a
 * before → after table, a standing permission's bounds) in place of the lines it covers.
 *
 * @param withHeading - give the card its own heading (when a request holds several actions).
 */
export function actionCard(action: ActionDisplay, withHeading: boolean): HTMLElement {
  const { amount } = action;
  const part = PARTS[action.type]?.(action) ?? null;
  // The amount is already shown large; a field that only repeats it is left out.
  const shown = action.fields.map((field, index) => ({ field, index })).filter(({ field, index }) => !(amount && field.label.toLowerCase() === 'amount' && field.value === amount.formatted_code) && !part?.covered.has(index));
  // The part takes the place of the first line it covers.
  const at = part && part.covered.size > 0 ? Math.min(...part.covered) : -1;
  const before = shown.filter(({ index }) => index < at).map(({ field }) => fieldRow(action, field));
  const after = shown.filter(({ index }) => index >= at).map(({ field }) => fieldRow(action, field));
  return h(
    'article',
    { class: 'card action', testid: 'action', attrs: { 'data-type': action.type } },
    withHeading ? h('h2', { class: 'action-title' }, action.title) : null,
    warningNotes(action.warnings),
    amount ? h('div', { class: 'amount-block' }, h('p', { class: 'amount-label' }, 'Amount'), h('p', { class: 'amount', testid: 'amount', attrs: { 'data-currency': amount.currency, 'data-amount-minor': amount.amount_minor } }, amount.formatted_code)) : null,
    before.length > 0 ? h('dl', { class: 'fields' }, ...before) : null,
    part?.element ?? null,
    after.length > 0 ? h('dl', { class: 'fields' }, ...after) : null,
  );
}

/** One of the server's lines; a tool call's `Arguments` line as the structured arguments. */
function fieldRow(action: ActionDisplay, field: ActionDisplay['fields'][number]): HTMLElement {
  const structured = action.arguments;
  return structured && field.label === 'Arguments' ? h('div', { class: 'field-row field-arguments' }, h('dt', {}, field.label), h('dd', { testid: 'field-arguments' }, argumentMembers(structured))) : h('div', { class: 'field-row' }, h('dt', {}, field.label), h('dd', { testid: fieldTestId(field.label) }, field.value));
}
