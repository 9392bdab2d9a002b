import type { RequestDisplay } from '@countersign/shared';
import { h } from '../../ui/dom.ts';

/**
 * A batch's total per currency, once, above its actions: `Total of 3 payments`, then `EUR 200.50`
 * and `JPY 5,000` as the server summed them (`totals`, per currency, never added across
 * currencies). Shown only when a request holds several actions; a single payment's amount is its total.
 */
export function batchTotals(request: Pick<RequestDisplay, 'actions' | 'totals'>): HTMLElement | null {
  if (request.actions.length < 2 || request.totals.length === 0) return null;
  const payments = request.actions.filter((action) => action.amount).length;
  return h(
    'section',
    { class: 'card totals', testid: 'totals', attrs: { 'aria-labelledby': 'totals-title' } },
    h('h2', { class: 'totals-title', attrs: { id: 'totals-title' } }, payments === 1 ? 'Total of 1 payment' : `Total of ${payments} payments`),
    h('ul', { class: 'totals-list' }, ...request.totals.map((total) => h('li', { class: 'total', testid: 'total', attrs: { 'data-currency': total.currency, 'data-amount-minor': total.amount_minor } }, total.formatted_code))),
  );
}
