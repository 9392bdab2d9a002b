import { counted, type MandateSpendView, type MandateStatus, type MandateView } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { formatWhen } from '../../ui/format-time.ts';

/** A status in words with a mark, so it never rests on colour alone; the class picks the badge's colours. */
const STATUS: Record<MandateStatus, { text: string; mark: string; badge: string }> = {
  active: { text: 'Active', mark: '✓', badge: 'badge-approved' },
  pending: { text: 'Waiting for your approval', mark: '…', badge: 'badge-info' },
  revoked: { text: 'Revoked', mark: '✕', badge: 'badge-denied' },
  expired: { text: 'Ended', mark: '–', badge: 'badge-ended' },
};

/** The period the figures are for: `this month`, or the mandate's whole life. */
const THIS: Record<string, string> = { day: 'today', week: 'this week', month: 'this month' };

/** `this month`, `today`, or `in all` for a mandate without a period. */
export function periodWords(view: Pick<MandateView, 'display'>): string {
  const period = view.display.mandate?.period;
  return period ? THIS[period]! : 'in all';
}

/** The mandate's status as a badge: `✓ Active`, `✕ Revoked`… */
export function statusBadge(status: MandateStatus): HTMLElement {
  const shown = STATUS[status];
  return h('span', { class: `badge ${shown.badge}`, testid: 'mandate-status', attrs: { 'data-status': status } }, h('span', { attrs: { 'aria-hidden': 'true' } }, `${shown.mark} `), shown.text);
}

/**
 * What is left, per currency, in the current period (or in all), and how many payments are left:
 * `EUR 27.00 left this month`, `of EUR 37.00, EUR 10.00 paid`; `3 payments left this month`.
 * The figures are the server's (`remaining`, `spends_left`), never added up here.
 */
export function remainingList(view: MandateView): HTMLElement {
  const when = periodWords(view);
  return h(
    'ul',
    { class: 'mandate-remaining', testid: 'mandate-remaining', attrs: { 'aria-label': `What is left ${when}` } },
    ...view.remaining.map((left) =>
      h(
        'li',
        { class: 'remaining', testid: 'remaining', attrs: { 'data-currency': left.currency, 'data-left-minor': left.left.amount_minor } },
        h('span', { class: 'remaining-left' }, h('strong', { testid: 'remaining-left' }, left.left.formatted_code), ` left ${when}`),
        h('span', { class: 'remaining-of' }, `of ${left.total.formatted_code}, `, h('span', { testid: 'remaining-spent' }, left.spent.formatted_code), ' paid'),
      ),
    ),
    view.spends_left === null ? null : h('li', { class: 'remaining', testid: 'spends-left', attrs: { 'data-count': view.spends_left } }, h('span', { class: 'remaining-left' }, h('strong', {}, counted(view.spends_left, 'payment')), ` left ${when}`)),
  );
}

/** One payment made under a mandate: amount, payee, when, and its outcome in words (with its reference or reason). */
export function spendItem(spend: MandateSpendView): HTMLElement {
  const outcome = spend.outcome;
  const badge =
    outcome.status === 'succeeded'
      ? h('span', { class: 'badge badge-executed', testid: 'spend-outcome', attrs: { 'data-outcome': 'succeeded' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '✓ '), 'Succeeded')
      : outcome.status === 'failed'
        ? h('span', { class: 'badge badge-failed', testid: 'spend-outcome', attrs: { 'data-outcome': 'failed' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '! '), 'Failed')
        : h('span', { class: 'badge badge-awaiting_outcome', testid: 'spend-outcome', attrs: { 'data-outcome': 'unknown' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '⋯ '), 'Outcome not reported yet');
  return h(
    'article',
    { class: 'spend', testid: 'spend', attrs: { 'data-redemption-id': spend.redemption_id, 'data-transaction-id': spend.transaction_id, 'aria-label': `${spend.amount.formatted_code} to ${spend.payee.name}` } },
    h('div', { class: 'spend-head' }, h('p', { class: 'spend-amount', testid: 'spend-amount', attrs: { 'data-amount-minor': spend.amount.amount_minor } }, spend.amount.formatted_code), badge),
    h('p', { class: 'spend-payee' }, 'to ', h('span', { testid: 'spend-payee' }, `${spend.payee.name} (${spend.payee.id})`)),
    h('p', { class: 'spend-meta' }, h('span', { testid: 'spend-when' }, formatWhen(spend.spent_at)), ' · ', h('span', { class: 'code', testid: 'spend-transaction' }, spend.transaction_id)),
    outcome.reference ? h('p', { class: 'spend-extra' }, 'Reference: ', h('span', { class: 'code', testid: 'spend-reference' }, outcome.reference)) : null,
    outcome.reason ? h('p', { class: 'spend-extra' }, 'Reason: ', h('span', { testid: 'spend-reason' }, outcome.reason)) : null,
  );
}

/** `until 3 Jan 2027, 00:00`, `revoked today, 14:05`, `ended …`. */
export function endText(view: Pick<MandateView, 'status' | 'ends_at' | 'revoked_at'>): string {
  if (view.status === 'revoked' && view.revoked_at) return `revoked ${formatWhen(view.revoked_at)}`;
  // Denied or never approved in time: it ended before its own end.
  if (view.status === 'expired') return Date.parse(view.ends_at) <= Date.now() ? `ended ${formatWhen(view.ends_at)}` : 'ended';
  return `until ${formatWhen(view.ends_at)}`;
}
