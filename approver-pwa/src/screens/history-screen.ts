import type { HistoryEntry } from '@countersign/shared';
import { getHistory, isApiError } from '../api/index.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { formatWhen } from '../ui/format-time.ts';
import { fieldTestId } from './action-card.ts';
import { errorBanner, errorMessage } from './messages.ts';
import { asParty, partyName, tierText } from './request-facts.ts';
import { describeResult, RESULT_ICONS } from './request-result.ts';
import { requestTitle } from './request-title.ts';
import type { Dispose, ScreenContext } from './screen.ts';

/**
 * The history (`#/history`): the requests this person approved, denied, reported or let expire,
 * newest first, each with what they did and what became of it as the server last recorded it
 * (executed, failed, expired…). The details of each open in place. Kept live like the inbox.
 */
export function mountHistoryScreen(ctx: ScreenContext): Dispose {
  setTitle('History');
  const list = h('div', { class: 'history', attrs: { 'aria-busy': true } }, h('p', { class: 'muted' }, 'Loading your history…'));
  const errorSlot = h('div', { class: 'slot' });
  ctx.root.replaceChildren(h('section', { class: 'screen', testid: 'history-screen' }, h('h1', {}, 'History'), h('p', { class: 'muted' }, 'What you approved, denied or let expire, and what came of it. Newest first; the last 50 are kept.'), errorSlot, list));
  focusHeading(ctx.root);
  /** Which entries the person opened, so a live refresh keeps them open. */
  const open = new Set<string>();

  let loading = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      const entries = await getHistory(ctx.signal);
      errorSlot.replaceChildren();
      render(entries);
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
    } finally {
      loading = false;
      if (again && !ctx.signal.aborted) {
        again = false;
        void refresh();
      }
    }
  }

  function render(entries: HistoryEntry[]): void {
    list.removeAttribute('aria-busy');
    if (entries.length === 0) {
      list.replaceChildren(h('div', { class: 'empty', testid: 'history-empty' }, h('p', { class: 'empty-title' }, 'Nothing yet'), h('p', { class: 'muted' }, 'Requests you approve or deny appear here, with what came of them.')));
      return;
    }
    // Keep the focus on the same entry's summary across a refresh.
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.closest<HTMLElement>('[data-auth-req-id]')?.dataset.authReqId : undefined;
    list.replaceChildren(h('ul', { class: 'history-list', attrs: { 'aria-label': 'Past requests' } }, ...entries.map((entry) => h('li', {}, item(entry)))));
    if (focused) list.querySelector<HTMLElement>(`[data-auth-req-id="${CSS.escape(focused)}"] summary`)?.focus();
  }

  function item(entry: HistoryEntry): HTMLElement {
    // Pending in a history means this person's part is done and others must still approve.
    const result = describeResult({ ...entry, viewer: { party: null, can_decide: false, can_report: false } });
    const details = h(
      'details',
      { class: 'history-details', attrs: { open: open.has(entry.auth_req_id) }, on: { toggle: () => (details.open ? open.add(entry.auth_req_id) : open.delete(entry.auth_req_id)) } },
      h('summary', { testid: 'history-more' }, 'Details'),
      ...entry.actions.map((action) =>
        h('dl', { class: 'fields' }, entry.actions.length > 1 ? h('div', { class: 'field-row' }, h('dt', {}, 'Action'), h('dd', {}, action.title)) : null, ...action.fields.map((field) => h('div', { class: 'field-row' }, h('dt', {}, field.label), h('dd', { testid: fieldTestId(field.label) }, field.value)))),
      ),
      h(
        'dl',
        { class: 'fields' },
        h('div', { class: 'field-row' }, h('dt', {}, 'Policy tier'), h('dd', { testid: 'history-tier' }, tierText({ ...entry, number_matching: null }))),
        entry.binding_message ? h('div', { class: 'field-row' }, h('dt', {}, 'Message'), h('dd', {}, entry.binding_message)) : null,
        entry.approvals.length > 1 ? h('div', { class: 'field-row' }, h('dt', {}, 'Approvals'), h('dd', {}, entry.approvals.map((approval) => `${partyName(approval.party, approval.label)}: ${approval.status === 'approved' ? 'approved' : 'not yet'}`).join('; '))) : null,
        h('div', { class: 'field-row' }, h('dt', {}, 'Asked'), h('dd', {}, formatWhen(entry.created_at))),
      ),
    );
    const outcome = entry.outcome && entry.outcome.status !== 'unknown' ? entry.outcome : null;
    return h(
      'article',
      { class: 'history-item', testid: 'history-item', attrs: { 'data-auth-req-id': entry.auth_req_id, 'data-result': result.kind, 'aria-labelledby': `history-${entry.auth_req_id}` } },
      h(
        'div',
        { class: 'history-head' },
        h('h2', { class: 'history-title', attrs: { id: `history-${entry.auth_req_id}` } }, requestTitle(entry)),
        h('span', { class: `badge badge-${result.kind}`, testid: 'history-result' }, h('span', { attrs: { 'aria-hidden': 'true' } }, `${RESULT_ICONS[result.kind]} `), badgeText(entry, result.headline)),
      ),
      h('p', { class: 'history-meta' }, h('span', { testid: 'client-name' }, entry.client_name), ' · ', h('span', { testid: 'history-when' }, formatWhen(entry.recorded_at))),
      h('p', { class: 'history-part', testid: 'history-part' }, partText(entry)),
      outcome?.reference ? h('p', { class: 'history-extra' }, 'Reference: ', h('span', { class: 'code' }, outcome.reference)) : null,
      outcome?.reason ? h('p', { class: 'history-extra' }, 'Reason: ', outcome.reason) : null,
      details,
    );
  }

  const unsubscribe = ctx.events.subscribe(() => void refresh());
  void refresh();
  return () => unsubscribe();
}

/** The badge: the result's headline, shorter where the history's line says the rest. */
function badgeText(entry: HistoryEntry, headline: string): string {
  if (entry.state === 'pending') return 'Waiting for others';
  if (entry.state === 'redeemed' && (!entry.outcome || entry.outcome.status === 'unknown')) return 'In progress';
  if (entry.state === 'denied' && entry.denial === 'fraud_reported') return 'Reported';
  return headline;
}

/** What this person did, in one line. */
function partText(entry: HistoryEntry): string {
  const part = entry.your_part;
  const as = part && part.party !== 'customer' ? ` as ${asParty(part.party)}` : '';
  if (part?.decision === 'reported') return `You said “this wasn’t me”. ${entry.client_name} is blocked until your administrator clears it.`;
  if (part?.decision === 'denied') return `You denied it${as}.`;
  if (entry.denial === 'wrong_binding_code') return 'Denied: the code picked was not the one the agent showed.';
  if (part?.decision === 'approved') {
    const others = entry.state === 'denied' ? ' Someone else denied it.' : '';
    return `You approved it${as}.${others}`;
  }
  if (entry.state === 'expired') return 'It expired before anyone answered.';
  return entry.state === 'denied' ? 'Someone else denied it.' : 'Decided by someone else.';
}
