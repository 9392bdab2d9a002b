import type { ApprovalParty, RequestDisplay } from '@countersign/shared';
import { startAuthentication } from '@simplewebauthn/browser';
import { getRequest, isApiError, listRequests, postDecision, postReport, type RequestView } from '../api/index.ts';
import { startCountdown } from '../ui/countdown.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { timeLeftText } from '../ui/format-duration.ts';
import { choiceTestId, type Choice } from './decision-bar.ts';
import { errorBanner, errorMessage, isPasskeyCancelled } from './messages.ts';
import { backLink, confirmReport, describeFailure } from './request-parts.ts';
import { describeResult } from './request-result.ts';
import { requestTitle } from './request-title.ts';
import { requestSection } from './request-section.ts';
import type { Dispose, ScreenContext } from './screen.ts';

/**
 * One request (`#/requests/<auth_req_id>`): what exactly is asked, by whom, under which policy
 * tier, who else must approve, the binding message and the time left; then the decision bar
 * (see `decision-bar.ts`): Deny, Approve (or, under number matching, the three candidate codes)
 * and "This wasn't me". Each choice signs this request with the passkey (the server binds each
 * prompt's challenge to the request's details hash, the decision and, under number matching, the
 * code). After the decision it shows what the server says became of it, and keeps following it
 * until the agent reports the outcome.
 */
export function mountRequestScreen(ctx: ScreenContext, authReqId: string): Dispose {
  let view: RequestView | null = null;
  let busy: Choice | null = null;
  /** The countdown reached 0 before the server said so. */
  let expiredLocally = false;
  let error: string | null = null;
  /** This person said "this wasn't me" here: the denial is also a report and a block. */
  let reported = false;
  /** This person picked a wrong code here, which denied the request. */
  let wrongCode = false;
  /** The party this person approves as, once known (it is null in the display after they approved). */
  let you: ApprovalParty | null = null;
  let stopCountdown: Dispose = () => undefined;
  let firstRender = true;
  /** Whether the last render offered the decision, to notice the moment it no longer does. */
  let wasPending = false;
  /** The button to focus again after its passkey prompt failed (it was disabled meanwhile). */
  let refocus: string | null = null;

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
      const viewer = view.request.viewer;
      you = viewer?.party ?? (viewer?.can_report ? 'customer' : you);
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
      const listed = pending.find((request) => request.auth_req_id === authReqId);
      // Gone, or another party approved meanwhile (the approvals changed).
      if (!listed || JSON.stringify(listed.approvals) !== JSON.stringify(view?.request.approvals)) void load();
    } catch {
      // The next tick tries again.
    }
  }

  async function choose(choice: Choice): Promise<void> {
    const options = view?.options;
    if (busy || !options || !view || expiredLocally) return;
    const prompt = choice.kind === 'approve' ? (choice.code !== undefined ? options.approve_by_code?.[choice.code] : options.approve) : options.deny;
    if (!prompt) return;
    if (choice.kind === 'report' && !(await confirmReport(ctx.root, view.request.client_name))) return;
    if (busy || ctx.signal.aborted) return;
    busy = choice;
    error = null;
    render();
    try {
      const response = await startAuthentication({ optionsJSON: prompt });
      setStatus('Sending your decision…');
      const request = choice.kind === 'report' ? await postReport(authReqId, response) : await postDecision(authReqId, choice.kind, response, choice.kind === 'approve' ? choice.code : undefined);
      busy = null;
      reported = choice.kind === 'report';
      // Still pending (others must approve): fetch it again, for the prompts that are left (Deny).
      view = { request, options: null };
      if (request.state === 'pending') {
        await load();
      } else {
        render();
      }
      // The result panel is at the top, under the app bar: show both, and read the result out.
      window.scrollTo(0, 0);
      ctx.root.querySelector<HTMLElement>('[data-testid="result"]')?.focus({ preventScroll: true });
    } catch (caught) {
      busy = null;
      if (ctx.signal.aborted) return;
      if (isApiError(caught, 'login_required')) return ctx.loginRequired();
      error = describeFailure(caught);
      wrongCode = isApiError(caught, 'wrong_binding_code');
      // A wrong code denied the request: its buttons are gone, and what became of it is the result.
      refocus = wrongCode ? 'result' : choiceTestId(choice);
      // A cancelled prompt sent nothing; anything else may have spent this challenge or changed
      // the request (a wrong code denies it), so fetch it again.
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
    ctx.root.replaceChildren(requestSection({ view, pending, expiredLocally, timeLeft, busy, error, reported, wrongCode, you, choose: (choice) => void choose(choice) }));

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

  function renderNotFound(): void {
    setTitle('Request not found');
    ctx.root.replaceChildren(h('section', { class: 'screen', testid: 'request-not-found' }, backLink(), h('h1', {}, 'Request not found'), h('p', {}, 'This request does not exist, or it is not for you.')));
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
    // A confirmation left open belongs to this screen.
    ctx.root.querySelector('dialog')?.remove();
  };
}

/** Nothing more will change: denied, expired, or executed or failed as the agent reported. */
function isSettled(request: RequestDisplay): boolean {
  const kind = describeResult(request).kind;
  return kind === 'denied' || kind === 'expired' || kind === 'executed' || kind === 'failed';
}
