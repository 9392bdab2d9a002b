import type { RequestDisplay } from '@countersign/shared';
import { isApiError, listRequests } from '../api/index.ts';
import { notificationsCard } from '../push/notifications-card.ts';
import { requestHref } from '../router.ts';
import { startCountdown } from '../ui/countdown.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { takeFlash } from '../ui/flash.ts';
import { timeLeftText } from '../ui/format-duration.ts';
import { deviceRemovalBanner } from './device-removal-banner.ts';
import { errorBanner, errorMessage } from './messages.ts';
import { tierText, waitingFor } from './request-facts.ts';
import { requestTitle } from './request-title.ts';
import type { Dispose, ScreenContext } from './screen.ts';

/**
 * The inbox (`#/`): the user's pending requests with their time left, kept live by server-sent
 * events (or polling), the notices of other devices removed meanwhile, and the notifications panel.
 */
export function mountInboxScreen(ctx: ScreenContext): Dispose {
  setTitle('Requests');
  const notifications = notificationsCard(ctx.session.vapid_public_key);
  const removals = deviceRemovalBanner(ctx.root);
  const list = h('div', { class: 'inbox', attrs: { 'aria-busy': true } }, h('p', { class: 'muted' }, 'Loading requests…'));
  const errorSlot = h('div', { class: 'slot' });
  const flash = takeFlash();
  let stopCountdowns: Dispose[] = [];

  ctx.root.replaceChildren(h('section', { class: 'screen', testid: 'inbox' }, flash ? h('p', { class: 'banner banner-success', testid: 'flash', attrs: { role: 'status' } }, flash) : null, h('h1', {}, 'Requests'), removals.element, errorSlot, list, notifications.element));
  focusHeading(ctx.root);

  let loading = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      const requests = await listRequests(ctx.signal);
      errorSlot.replaceChildren();
      // A request at 0 s may not have been moved to `expired` yet: it can no longer be approved.
      render(requests.filter((request) => request.state === 'pending' && request.seconds_left > 0));
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
      // Nothing is loading any more: the banner says why the list is not there. A list shown
      // before stays (it is what the server last said), with the banner above it.
      if (list.hasAttribute('aria-busy')) {
        list.removeAttribute('aria-busy');
        list.replaceChildren();
      }
    } finally {
      loading = false;
      if (again && !ctx.signal.aborted) {
        again = false;
        void refresh();
      }
    }
  }

  function render(requests: RequestDisplay[]): void {
    for (const stop of stopCountdowns) stop();
    stopCountdowns = [];
    list.removeAttribute('aria-busy');
    if (requests.length === 0) {
      list.replaceChildren(h('div', { class: 'empty', testid: 'inbox-empty' }, h('p', { class: 'empty-title' }, 'Nothing to approve'), h('p', { class: 'muted' }, 'When an agent asks for your approval, the request appears here at once.')));
      return;
    }
    list.replaceChildren(h('ul', { class: 'inbox-list', attrs: { 'aria-label': 'Pending requests' } }, ...requests.map((request) => h('li', {}, item(request)))));
  }

  function item(request: RequestDisplay): HTMLElement {
    const timeLeft = h('span', { class: 'time-left', testid: 'time-left' });
    stopCountdowns.push(
      startCountdown(request.seconds_left, (seconds) => {
        timeLeft.textContent = timeLeftText(seconds);
        timeLeft.classList.toggle('time-left-low', seconds < 60);
        if (seconds === 0 && request.seconds_left > 0) void refresh();
      }),
    );
    return h(
      'a',
      { class: 'inbox-item', testid: 'inbox-item', attrs: { href: requestHref(request.auth_req_id), 'data-auth-req-id': request.auth_req_id } },
      request.test ? h('span', { class: 'test-badge', testid: 'test-badge' }, 'Test request') : null,
      h('span', { class: 'inbox-item-title', testid: 'inbox-item-title' }, requestTitle(request)),
      h('span', { class: 'inbox-item-meta' }, h('span', { testid: 'client-name' }, request.client_name), timeLeft),
      request.tier !== 'standard' || request.approvals.length > 1 ? h('span', { class: 'inbox-item-tier', testid: 'inbox-item-tier' }, tierText(request)) : null,
      // A reviewer never sees where the request was made: the message is the customer's to check.
      request.binding_message ? h('span', { class: 'inbox-item-code' }, isReviewer(request) ? 'Customer’s message: ' : 'Message: ', h('span', { class: 'code' }, request.binding_message)) : null,
      // This person's part is done; the request waits for the others.
      request.viewer && request.viewer.party === null && request.approvals.some((approval) => approval.status === 'approved') ? h('span', { class: 'inbox-item-waiting', testid: 'inbox-item-waiting' }, `You approved · waiting for ${waitingFor(request)}`) : null,
    );
  }

  const unsubscribe = ctx.events.subscribe(() => void refresh());
  void refresh();

  return () => {
    unsubscribe();
    removals.dispose();
    notifications.dispose();
    for (const stop of stopCountdowns) stop();
  };
}

/** Whether this device looks at the request as a reviewer (a role), not as its customer. */
function isReviewer(request: RequestDisplay): boolean {
  const party = request.viewer?.party;
  return party !== undefined && party !== null && party !== 'customer';
}
