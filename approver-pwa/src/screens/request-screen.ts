import type { Decision, RequestDisplay } from '@countersign/shared';
import { startAuthentication } from '@simplewebauthn/browser';
import { getRequest, isApiError, listRequests, postDecision, type RequestView } from '../api/index.ts';
import { startCountdown } from '../ui/countdown.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { timeLeftText } from '../ui/format-duration.ts';
import { actionCard } from './action-card.ts';
import { errorBanner, errorMessage, isPasskeyCancelled } from './messages.ts';
import { describeResult, resultPanel } from './request-result.ts';
import { requestTitle } from './request-title.ts';
import type { Dispose, ScreenContext } from './screen.ts';

const VERB: Record<Decision, string> = { approve: 'approve', deny: 'deny' };

/**
 * One request (`#/requests/<auth_req_id>`): what exactly is asked, by whom, the binding message
 * and the time left; Approve and Deny each sign this request with the passkey (the server binds
 * each decision's challenge to the request's details hash). After the decision it shows what the
 * server says became of it, and keeps following it until the agent reports the outcome.
 */
export function mountRequestScreen(ctx: ScreenContext, authReqId: string): Dispose {
  let view: RequestView | null = null;
  let busy: Decision | null = null;
  /** The countdown reached 0 before the server said so. */
  let expiredLocally = false;
  let error: string | null = null;
  let stopCountdown: Dispose = () => undefined;
  let firstRender = true;
  /** Whether the last render offered the decision, to notice the moment it no longer does. */
  let wasPending = false;
  /** The decision button to focus again after its passkey prompt failed (it was disabled meanwhile). */
  let refocus: Decision | null = null;

  setTitle('Request');
  ctx.root.replaceChildren(h('section', { class: 'screen', attrs: { 'aria-busy': true } }, h('h1', { class: 'visually-hidden' }, 'Request'), h('p', { class: 'muted' }, 'Loading request…')));

  let loading = false;
  let again = false;
  /** Fetches the request (and fresh WebAuthn options); never while a passkey prompt is open. */
  async function load(): Promise<void> {
    if (loading || busy) {
      again = true;
      return;
    }
    loading = true;
    try {
      view = await getRequest(authReqId, ctx.signal);
      expiredLocally = view.request.state === 'pending' && view.request.seconds_left <= 0;
      render();
    } catch (caught) {
      if (ctx.signal.aborted) return;
      if (isApiError(caught, 'login_required')) return ctx.loginRequired();
      if (isApiError(caught, 'not_found')) return renderNotFound();
      error = errorMessage(caught);
      render();
    } finally {
      loading = false;
      if (again && !busy && !ctx.signal.aborted) {
        again = false;
        void load();
      }
    }
  }

  /** On a poll tick, a pending request is refetched only once it has left the pending list: each
   * fetch mints new passkey challenges, which the server need not do every 5 s. */
  async function checkStillPending(): Promise<void> {
    try {
      const pending = await listRequests(ctx.signal);
      if (!pending.some((request) => request.auth_req_id === authReqId)) void load();
    } catch {
      // The next tick tries again.
    }
  }

  async function decide(decision: Decision): Promise<void> {
    const options = view?.options?.[decision];
    if (busy || !options || expiredLocally) return;
    busy = decision;
    error = null;
    render();
    try {
      const response = await startAuthentication({ optionsJSON: options });
      setStatus('Sending your decision…');
      const request = await postDecision(authReqId, decision, response);
      busy = null;
      view = { request, options: null };
      render();
      // The result panel is at the top, under the app bar: show both, and read the result out.
      window.scrollTo(0, 0);
      ctx.root.querySelector<HTMLElement>('[data-testid="result"]')?.focus({ preventScroll: true });
    } catch (caught) {
      busy = null;
      if (ctx.signal.aborted) return;
      if (isApiError(caught, 'login_required')) return ctx.loginRequired();
      error = errorMessage(caught);
      refocus = decision;
      // A cancelled prompt sent nothing; anything else may have spent this challenge or changed
      // the request, so fetch it again with fresh options.
      if (isPasskeyCancelled(caught)) render();
      else await load();
    } finally {
      if (again && !busy && !ctx.signal.aborted) {
        again = false;
        void load();
      }
    }
  }

  function setStatus(text: string): void {
    const status = ctx.root.querySelector('[data-testid="decision-status"]');
    if (status) status.textContent = text;
  }

  function render(): void {
    if (!view) {
      ctx.root.replaceChildren(h('section', { class: 'screen' }, h('h1', {}, 'Request'), error ? errorBanner(error) : null, backLink()));
      return;
    }
    const request = view.request;
    const pending = request.state === 'pending' && !expiredLocally;
    const focusedTestId = document.activeElement instanceof HTMLElement && ctx.root.contains(document.activeElement) ? document.activeElement.dataset.testid : undefined;
    stopCountdown();
    stopCountdown = () => undefined;
    setTitle(requestTitle(request));

    const timeLeft = h('span', { class: 'time-left', testid: 'time-left', attrs: { role: 'timer' } });
    const deciding = pending && view.options !== null;
    ctx.root.replaceChildren(
      h(
        'section',
        { class: 'screen request', testid: 'request-screen', attrs: { 'data-state': request.state, 'data-auth-req-id': request.auth_req_id } },
        h('div', { class: 'request-nav' }, backLink(), pending ? h('p', { class: 'time-left-line' }, timeLeft) : null),
        h('p', { class: 'eyebrow' }, 'Requested by ', h('strong', { testid: 'client-name' }, request.client_name)),
        // Focusable from script, so focus on it survives a re-render.
        h('h1', { testid: 'request-title', attrs: { tabindex: -1 } }, requestTitle(request)),
        // Once decided, what became of it comes first; the details below say what it was.
        pending ? null : resultPanel(expiredLocally ? { ...request, state: 'expired' } : request),
        ...request.actions.map((action) => actionCard(action, request.actions.length > 1)),
        request.binding_message ? (pending ? bindingBox(request.binding_message) : bindingLine(request.binding_message)) : null,
        // While deciding, an error belongs next to the buttons, which stay in view.
        error && !deciding ? errorBanner(error) : null,
        deciding ? decisionBar() : null,
        !pending ? h('p', {}, h('a', { attrs: { href: '#/' } }, 'Back to your requests')) : null,
      ),
    );

    if (pending) {
      stopCountdown = startCountdown(request.seconds_left, (seconds) => {
        timeLeft.textContent = timeLeftText(seconds);
        timeLeft.classList.toggle('time-left-low', seconds < 60);
        if (seconds === 0 && !busy) {
          expiredLocally = true;
          render();
          // Give the server a moment to move it to `expired`, then show its word for it.
          setTimeout(() => void load(), 1000);
        }
      });
    }

    const restore = focusedTestId ?? (refocus && !busy ? refocus : undefined);
    if (!busy) refocus = null;
    if (firstRender) {
      firstRender = false;
      focusHeading(ctx.root);
    } else if (wasPending && !pending) {
      // Decided (here or elsewhere) or expired: what became of it is at the top.
      window.scrollTo(0, 0);
      if (restore) ctx.root.querySelector<HTMLElement>(`[data-testid="${restore}"]`)?.focus({ preventScroll: true });
    } else if (restore) {
      ctx.root.querySelector<HTMLElement>(`[data-testid="${restore}"]`)?.focus();
    }
    wasPending = pending;
  }

  function decisionBar(): HTMLElement {
    const button = (decision: Decision, label: string, className: string) =>
      h(
        'button',
        {
          class: `btn ${className}`,
          testid: decision,
          attrs: { type: 'button', disabled: busy !== null, 'aria-describedby': 'decision-hint' },
          on: { click: () => void decide(decision) },
        },
        label,
      );
    // Sticky at the bottom of the viewport while the details scroll under it (it keeps its own
    // place at the end of the screen, so it never covers the last of them).
    return h(
      'section',
      { class: 'decision-bar', testid: 'decision-bar', attrs: { 'aria-label': 'Your decision' } },
      error ? errorBanner(error) : null,
      h('p', { class: 'hint decision-hint', attrs: { id: 'decision-hint' } }, 'Both ask for your passkey.'),
      h('div', { class: 'decision-buttons' }, button('deny', 'Deny', 'btn-deny'), button('approve', 'Approve', 'btn-approve')),
      h('p', { class: 'status decision-status', testid: 'decision-status', attrs: { role: 'status' } }, busy ? `Confirm with your passkey to ${VERB[busy]}…` : ''),
    );
  }

  function renderNotFound(): void {
    setTitle('Request not found');
    ctx.root.replaceChildren(
      h(
        'section',
        { class: 'screen', testid: 'request-not-found' },
        backLink(),
        h('h1', {}, 'Request not found'),
        h('p', {}, 'This request does not exist, or it is not for you.'),
      ),
    );
    focusHeading(ctx.root);
  }

  const unsubscribe = ctx.events.subscribe((event) => {
    if (event) {
      if (event.auth_req_id === authReqId) void load();
      return;
    }
    if (!view) return void load();
    if (view.request.state === 'pending' && !expiredLocally) return void checkStillPending();
    if (!isSettled(view.request)) void load();
  });
  void load();

  return () => {
    unsubscribe();
    stopCountdown();
  };
}

/** Nothing more will change: denied, expired, or executed or failed as the agent reported. */
function isSettled(request: RequestDisplay): boolean {
  const kind = describeResult(request).kind;
  return kind === 'denied' || kind === 'expired' || kind === 'executed' || kind === 'failed';
}

function backLink(): HTMLElement {
  return h('a', { class: 'back-link', attrs: { href: '#/' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '‹ '), 'Requests');
}

/** After the decision the code is only a reminder of which request this was. */
function bindingLine(message: string): HTMLElement {
  return h('p', { class: 'binding-line' }, 'Code: ', h('span', { class: 'code', testid: 'binding-message' }, message));
}

/** Before the decision: the code the person must compare with what the agent showed them. */
function bindingBox(message: string): HTMLElement {
  return h(
    'section',
    { class: 'binding', attrs: { 'aria-labelledby': 'binding-label' } },
    h('p', { class: 'binding-label', attrs: { id: 'binding-label' } }, 'Check this code matches:'),
    h('p', { class: 'binding-code', testid: 'binding-message' }, message),
    h('p', { class: 'hint' }, 'It is shown where the request was made. If it is not the same, deny.'),
  );
}
