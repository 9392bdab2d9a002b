import type { ActionDisplay } from '@countersign/shared';
import { h } from '../ui/dom.ts';
import { argumentMembers } from './tool-arguments.ts';

/** Test ids the screen uses for itself; a field with one of these labels gets a `field-` prefix. */
const RESERVED_TESTIDS = new Set(['amount', 'amount-symbol', 'client-name', 'binding-message', 'time-left', 'result', 'approve', 'deny', 'report', 'tier', 'approvals', 'approval']);

/** The `data-testid` of a field from its label: `Payee` → `payee`, `Reference no.` → `reference-no`. */
export function fieldTestId(label: string): string {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'field';
  return RESERVED_TESTIDS.has(slug) ? `field-${slug}` : slug;
}

/**
 * One action as the server computed it: the amount large (ISO code first, so EUR and USD can't be
 * mistaken, and the symbol form under it), then every field in the server's order; a tool call's
 * arguments as nested lists, long strings folded with the full text one tap away.
 *
 * @param withHeading - give the card its own heading (when a request holds several actions).
 */
export function actionCard(action: ActionDisplay, withHeading: boolean): HTMLElement {
  const { amount } = action;
  // The amount is already shown large; a field that only repeats it is left out.
  const fields = action.fields.filter((field) => !(amount && field.label.toLowerCase() === 'amount' && field.value === amount.formatted_code));
  // A tool call's arguments are shown structured, in place of the one-line `Arguments` field.
  const structured = action.arguments;
  const rows = fields.map((field) =>
    structured && field.label === 'Arguments'
      ? h('div', { class: 'field-row field-arguments' }, h('dt', {}, field.label), h('dd', { testid: 'field-arguments' }, argumentMembers(structured)))
      : h('div', { class: 'field-row' }, h('dt', {}, field.label), h('dd', { testid: fieldTestId(field.label) }, field.value)),
  );
  return h(
    'article',
    { class: 'card action', testid: 'action', attrs: { 'data-type': action.type } },
    withHeading ? h('h2', { class: 'action-title' }, action.title) : null,
    amount
      ? h(
          'div',
          { class: 'amount-block' },
          h('p', { class: 'amount-label' }, 'Amount'),
          h('p', { class: 'amount', testid: 'amount', attrs: { 'data-currency': amount.currency, 'data-amount-minor': amount.amount_minor } }, amount.formatted_code),
          amount.formatted !== amount.formatted_code ? h('p', { class: 'amount-symbol', testid: 'amount-symbol' }, amount.formatted) : null,
        )
      : null,
    rows.length > 0 ? h('dl', { class: 'fields' }, ...rows) : null,
  );
}
