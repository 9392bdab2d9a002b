import type { MandateView } from '@countersign/shared';
import { startAuthentication } from '@simplewebauthn/browser';
import { getMandate, isApiError, revokeMandate } from '../../api/index.ts';
import { confirmDialog } from '../../ui/confirm-dialog.ts';
import { append, focusHeading, h, setTitle } from '../../ui/dom.ts';
import { formatWhen } from '../../ui/format-time.ts';
import { actionCard } from '../action-card.ts';
import { errorBanner, errorMessage, isPasskeyCancelled } from '../messages.ts';
import type { Dispose, ScreenContext } from '../screen.ts';
import { endText, periodWords, remainingList, spendItem, statusBadge } from './mandate-parts.ts';
import './mandates.css';

/**
 * One mandate (`#/mandates/<auth_req_id>`): its status, the agent, what is left in this period,
 * the bounds as approved (the same card as at approval), and every payment made under it, newest
 * first, with its outcome. An active one has "Stop this mandate": a confirmation in plain words,
 * then the passkey over a prompt bound to revoking exactly this mandate (fetched afresh, as a
 * prompt lasts five minutes and is used once); the screen then shows it revoked.
 */
export function mountMandateScreen(ctx: ScreenContext, authReqId: string): Dispose {
  setTitle('Mandate');
  const errorSlot = h('div', { class: 'slot' });
  const status = h('p', { class: 'status', testid: 'mandate-message', attrs: { role: 'status' } });
  const body = h('div', { class: 'stack', attrs: { 'aria-busy': true } }, h('p', { class: 'muted' }, 'Loading the mandate…'));
  const back = h('a', { class: 'back-link', attrs: { href: '#/mandates' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '‹ '), 'Mandates');
  const screen = h('section', { class: 'screen mandate-screen', testid: 'mandate-screen', attrs: { 'data-auth-req-id': authReqId } }, back, body);
  ctx.root.replaceChildren(screen);
  let busy = false;

  async function load(): Promise<void> {
    try {
      const { mandate } = await getMandate(authReqId, ctx.signal);
      render(mandate);
      focusHeading(ctx.root);
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      body.removeAttribute('aria-busy');
      body.replaceChildren(h('h1', {}, isApiError(error, 'not_found') ? 'No such mandate' : 'Mandate'), errorBanner(errorMessage(error)));
      focusHeading(ctx.root);
    }
  }

  function render(view: MandateView): void {
    setTitle(view.display.title);
    screen.dataset.status = view.status;
    body.removeAttribute('aria-busy');
    const action = actionCard(view.display, false);
    body.replaceChildren();
    append(
      body,
      h('h1', { testid: 'mandate-title' }, view.display.title),
      h('div', { class: 'mandate-facts' }, statusBadge(view.status), h('p', { class: 'history-meta' }, h('span', { testid: 'client-name' }, view.client_name), ' · ', h('span', { testid: 'mandate-end' }, endText(view)))),
      view.status === 'revoked' ? h('p', { class: 'banner mandate-stopped', testid: 'mandate-revoked-note' }, `Revoked ${view.revoked_at ? formatWhen(view.revoked_at) : ''}. ${view.client_name} can make no more payments under it. Payments already made stay as they are.`) : null,
      status,
      errorSlot,
      view.status === 'active' ? h('section', { class: 'card stack', attrs: { 'aria-labelledby': 'left-title' } }, h('h2', { attrs: { id: 'left-title' } }, `Left ${periodWords(view)}`), remainingList(view), periodLine(view)) : null,
      h('section', { class: 'stack', attrs: { 'aria-labelledby': 'bounds-title' } }, h('h2', { attrs: { id: 'bounds-title' } }, 'What you approved'), action),
      h(
        'section',
        { class: 'stack', attrs: { 'aria-labelledby': 'spends-title' } },
        h('h2', { attrs: { id: 'spends-title' } }, view.spends.length === 0 ? 'Payments made' : `Payments made (${view.spends.length})`),
        view.spends.length === 0 ? h('p', { class: 'muted', testid: 'spends-empty' }, 'No payments yet.') : h('ul', { class: 'history-list', testid: 'spends', attrs: { 'aria-label': 'Payments made, newest first' } }, ...view.spends.map((spend) => h('li', {}, spendItem(spend)))),
      ),
      view.status === 'active' ? revokeSection(view) : null,
    );
  }

  function revokeSection(view: MandateView): HTMLElement {
    return h(
      'section',
      { class: 'card stack mandate-revoke', attrs: { 'aria-labelledby': 'revoke-title' } },
      h('h2', { attrs: { id: 'revoke-title' } }, 'Stop this mandate'),
      h('p', { class: 'hint', attrs: { id: 'revoke-hint' } }, `${view.client_name} can then make no more payments under it. You confirm with your passkey.`),
      h('button', { class: 'btn btn-danger btn-block', testid: 'revoke', attrs: { type: 'button', disabled: busy, 'aria-describedby': 'revoke-hint' }, on: { click: () => void revoke(view) } }, busy ? 'Stopping…' : 'Stop this mandate'),
    );
  }

  async function revoke(view: MandateView): Promise<void> {
    if (busy) return;
    const confirmed = await confirmDialog({
      parent: ctx.root,
      testid: 'revoke-dialog',
      title: `Stop ${view.client_name} from making more payments under this mandate?`,
      body: ['Payments already made stay as they are. To pay again this way, the agent must ask you for a new mandate.', 'You confirm with your passkey.'],
      confirmLabel: 'Stop mandate',
      danger: true,
    });
    if (!confirmed || ctx.signal.aborted) return;
    busy = true;
    errorSlot.replaceChildren();
    render(view);
    try {
      const fresh = await getMandate(authReqId, ctx.signal);
      if (!fresh.revoke) {
        busy = false;
        render(fresh.mandate);
        errorSlot.replaceChildren(errorBanner('This mandate is not active any more, so there is nothing to stop.'));
        return;
      }
      const response = await startAuthentication({ optionsJSON: fresh.revoke });
      status.textContent = 'Stopping the mandate…';
      const revoked = await revokeMandate(authReqId, response);
      busy = false;
      render(revoked);
      // The revoked note says what it means; this line confirms, once, that it was just done.
      status.textContent = 'Stopped with your passkey.';
      window.scrollTo(0, 0);
      focusHeading(ctx.root);
    } catch (error) {
      busy = false;
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      status.textContent = '';
      render(view);
      errorSlot.replaceChildren(errorBanner(isPasskeyCancelled(error) ? 'The passkey request was cancelled or timed out. The mandate was not stopped.' : errorMessage(error)));
      ctx.root.querySelector<HTMLElement>('[data-testid="revoke"]')?.focus();
    }
  }

  void load();
  return () => ctx.root.querySelector('dialog')?.remove();
}

/** `This month runs until 1 Jan 2027, 00:00; the amounts then start again.` */
function periodLine(view: MandateView): HTMLElement | null {
  if (!view.period) return null;
  return h('p', { class: 'hint', testid: 'mandate-period' }, `${periodWords(view).replace(/^./, (first) => first.toUpperCase())} runs until ${formatWhen(view.period.end)}; the amounts then start again.`);
}
