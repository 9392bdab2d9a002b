import type { MandateView } from '@countersign/shared';
import { isApiError, listMandates } from '../../api/index.ts';
import { mandateHref } from '../../router.ts';
import { focusHeading, h, setTitle } from '../../ui/dom.ts';
import { errorBanner, errorMessage } from '../messages.ts';
import type { Dispose, ScreenContext } from '../screen.ts';
import { endText, remainingList, statusBadge } from './mandate-parts.ts';
import './mandates.css';

/**
 * The person's standing mandates (`#/mandates`), active first as the server orders them: each
 * with its title (who may be paid, up to how much), its status in words, the agent, what is left
 * per currency in this period and how many payments are left; each opens its own screen, where
 * every payment is listed and an active one can be stopped. Refreshed when a request changes.
 */
export function mountMandatesScreen(ctx: ScreenContext): Dispose {
  setTitle('Mandates');
  const list = h('div', { class: 'mandates', attrs: { 'aria-busy': true } }, h('p', { class: 'muted' }, 'Loading your mandates…'));
  const errorSlot = h('div', { class: 'slot' });
  ctx.root.replaceChildren(h('section', { class: 'screen', testid: 'mandates-screen' }, h('h1', {}, 'Mandates'), h('p', { class: 'muted' }, 'Standing permissions you approved: an agent may make payments within them without asking you each time. Open one to see every payment, or to stop it.'), errorSlot, list));
  focusHeading(ctx.root);

  async function refresh(): Promise<void> {
    try {
      const mandates = await listMandates(ctx.signal);
      errorSlot.replaceChildren();
      render(mandates);
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
    }
  }

  function render(mandates: MandateView[]): void {
    list.removeAttribute('aria-busy');
    if (mandates.length === 0) {
      list.replaceChildren(h('div', { class: 'empty', testid: 'mandates-empty' }, h('p', { class: 'empty-title' }, 'No mandates'), h('p', { class: 'muted' }, 'When an agent asks for a standing permission and you approve it, it appears here.')));
      return;
    }
    list.replaceChildren(h('ul', { class: 'history-list', attrs: { 'aria-label': 'Your mandates' } }, ...mandates.map((mandate) => h('li', {}, item(mandate)))));
  }

  function item(view: MandateView): HTMLElement {
    const titleId = `mandate-${view.auth_req_id}`;
    return h(
      'article',
      { class: 'history-item mandate-item', testid: 'mandate-item', attrs: { 'data-auth-req-id': view.auth_req_id, 'data-status': view.status, 'aria-labelledby': titleId } },
      h('div', { class: 'history-head' }, h('h2', { class: 'history-title', attrs: { id: titleId } }, h('a', { class: 'mandate-link', testid: 'mandate-open', attrs: { href: mandateHref(view.auth_req_id) } }, view.display.title)), statusBadge(view.status)),
      h('p', { class: 'history-meta' }, h('span', { testid: 'client-name' }, view.client_name), ' · ', endText(view)),
      view.status === 'active' ? remainingList(view) : null,
      h('p', { class: 'history-meta', testid: 'mandate-spend-count' }, view.spends.length === 1 ? '1 payment made' : `${view.spends.length} payments made`),
    );
  }

  const unsubscribe = ctx.events.subscribe(() => void refresh());
  void refresh();
  return () => unsubscribe();
}
