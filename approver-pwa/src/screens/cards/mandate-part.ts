import { counted, type ActionDisplay, type DisplayMandate } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { bigFigure, labelledList, type CardPart } from './card-part.ts';

/** How a total renews, in words: `each month`, or for the mandate's whole life. */
const EACH: Record<NonNullable<DisplayMandate['period']>, string> = { day: 'each day', week: 'each week (from Monday)', month: 'each month' };
const PER: Record<NonNullable<DisplayMandate['period']>, string> = { day: 'a day', week: 'a week', month: 'a month' };

/** The mandate's lines (mandate.ts in shared) this part shows itself; `Purpose` and `Transaction` stay the server's lines. */
function coveredLines(action: ActionDisplay): Set<number> {
  const covered = new Set<number>();
  action.fields.forEach((field, index) => {
    if (['Payees', 'How many', 'From', 'Until', 'Receipts'].includes(field.label) || field.label.startsWith('Each payment') || field.label.startsWith('In all')) covered.add(index);
  });
  return covered;
}

/** The server's text of one line (its dates are in words, UTC), or `fallback`. */
function line(action: ActionDisplay, label: string, fallback: string): string {
  return action.fields.find((field) => field.label === label)?.value ?? fallback;
}

/** `at most 4 payments a month`, `at most 1 payment in all`, or no count. */
export function spendsText(mandate: Pick<DisplayMandate, 'max_spends' | 'period'>): string {
  if (mandate.max_spends === null) return 'Any number, within the amounts';
  return `At most ${counted(mandate.max_spends, 'payment')} ${mandate.period ? PER[mandate.period] : 'in all'}`;
}

/** `each month` or `in all, until it ends`: how a mandate's totals renew. */
export function periodText(period: DisplayMandate['period']): string {
  return period ? EACH[period] : 'in all, until it ends';
}

/**
 * A mandate (a standing permission): what it lets the agent do without asking again, then the
 * most it may pay in all per currency, large (per period or until it ends), each payment's range
 * under it; who may be paid; how many times; from and until (the server's words, UTC); receipts.
 * All from `display.mandate` and the server's lines, never from the client's text.
 */
export function mandatePart(action: ActionDisplay): CardPart | null {
  const mandate = action.mandate;
  if (!mandate) return null;
  const row = (label: string, value: string, testid: string) => h('div', { class: 'field-row' }, h('dt', {}, label), h('dd', { testid }, value));
  const element = h(
    'div',
    { class: 'part part-mandate', testid: 'mandate', attrs: { 'data-period': mandate.period ?? '' } },
    h('p', { class: 'mandate-lead', testid: 'mandate-lead' }, 'A standing permission: the agent may make these payments without asking you each time, until it ends or you stop it under Mandates.'),
    ...mandate.limits.map((limit) =>
      bigFigure({
        label: `Up to, ${periodText(mandate.period)}`,
        text: limit.total.formatted_code,
        count: limit.total.amount_minor,
        testid: 'mandate-total',
        under: h('p', { class: 'figure-under', testid: 'mandate-range', attrs: { 'data-currency': limit.currency } }, 'Each payment ', h('strong', {}, limit.per_spend_min.formatted_code), ' to ', h('strong', {}, limit.per_spend_max.formatted_code)),
      }),
    ),
    labelledList({ label: mandate.payees.length === 1 ? 'Who may be paid' : `Who may be paid (${mandate.payees.length})`, items: mandate.payees.map((payee) => `${payee.name} (${payee.id})`), testid: 'mandate-payees' }),
    h(
      'dl',
      { class: 'fields' },
      row('How many', spendsText(mandate), 'mandate-spends'),
      row('From', line(action, 'From', mandate.starts_at), 'mandate-from'),
      row('Until', line(action, 'Until', mandate.ends_at), 'mandate-until'),
      row('Receipts', mandate.receipts ? 'On: a notification for each payment' : 'Off: no notification for each payment', 'mandate-receipts'),
    ),
  );
  return { element, covered: coveredLines(action) };
}
