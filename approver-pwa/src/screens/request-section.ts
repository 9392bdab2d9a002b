import type { ApprovalParty } from '@countersign/shared';
import type { RequestView } from '../api/index.ts';
import { h } from '../ui/dom.ts';
import { actionCard } from './action-card.ts';
import { batchTotals } from './cards/batch-totals.ts';
import { type Choice, decisionBar } from './decision-bar.ts';
import { errorBanner } from './messages.ts';
import { approvalsList, escalationLine, tierLine } from './request-facts.ts';
import { backLink, bindingBox, bindingLine, reviewerBindingLine, reviewerNote, testBadge } from './request-parts.ts';
import { describeResult, resultPanel } from './request-result.ts';
import { requestTitle } from './request-title.ts';

/** What {@link requestSection} shows: the request screen's state at one render (`request-screen.ts`). */
export interface RequestSectionProps {
  view: RequestView;
  /** Pending and not run out here: the decision may still be offered. */
  pending: boolean;
  /** The countdown reached 0 before the server said so: shown as expired. */
  expiredLocally: boolean;
  /** The time-left element the screen's countdown writes into (shown while pending). */
  timeLeft: HTMLElement;
  /** The choice whose passkey prompt is open, if any. */
  busy: Choice | null;
  /** The last failure's message, if any. */
  error: string | null;
  /** This person said "this wasn't me" here. */
  reported: boolean;
  /** This person picked a wrong code here, which denied the request. */
  wrongCode: boolean;
  /** The party this person approves as, once known. */
  you: ApprovalParty | null;
  choose(choice: Choice): void;
}

/**
 * The request screen's section for one request: what is asked, by whom, under which tier, who else
 * must approve, the binding message, the result once there is one, and (while deciding) the
 * decision bar. Pure rendering: the screen owns the state, the countdown and the focus.
 */
export function requestSection({ view, pending, expiredLocally, timeLeft, busy, error, reported, wrongCode, you, choose }: RequestSectionProps): HTMLElement {
  const { request, options } = view;
  const deciding = pending && options !== null;
  const shown = expiredLocally ? { ...request, state: 'expired' as const } : request;
  const context = { reported, wrongCode };
  const result = describeResult(shown, context);
  // A wrong code's denial is said in the result panel, not again in an error line.
  const errorShown = error && !(wrongCode && request.state === 'denied') ? error : null;
  const reviewer = request.viewer?.party && request.viewer.party !== 'customer' ? request.viewer.party : null;
  return h(
    'section',
    { class: 'screen request', testid: 'request-screen', attrs: { 'data-state': request.state, 'data-auth-req-id': request.auth_req_id } },
    h('div', { class: 'request-nav' }, backLink(), pending ? h('p', { class: 'time-left-line' }, timeLeft) : null),
    request.test ? testBadge() : null,
    h('p', { class: 'eyebrow' }, 'Requested by ', h('strong', { testid: 'client-name' }, request.client_name)),
    // Focusable from script, so focus on it survives a re-render.
    h('h1', { testid: 'request-title', attrs: { tabindex: -1 } }, requestTitle(request)),
    tierLine(request),
    escalationLine(request),
    // While deciding, the message to compare comes first: on a phone it is then in view above
    // the sticky decision bar (the codes) without scrolling, not under it.
    request.binding_message && pending && !reviewer ? bindingBox(request.binding_message) : null,
    // Once decided (or this person's part is done), what became of it comes first.
    result.kind === 'pending' ? null : resultPanel(shown, context),
    reviewer ? reviewerNote(reviewer) : null,
    batchTotals(request),
    ...request.actions.map((action) => actionCard(action, request.actions.length > 1)),
    approvalsList(request, you),
    request.binding_message && (!pending || reviewer) ? (reviewer ? reviewerBindingLine(request.binding_message) : bindingLine(request.binding_message)) : null,
    // While deciding, an error belongs next to the buttons, which stay in view.
    errorShown && !deciding ? errorBanner(errorShown) : null,
    deciding ? decisionBar({ request, options: options!, busy, error: errorShown, choose }) : null,
    !pending ? h('p', {}, h('a', { attrs: { href: '#/' } }, 'Back to your requests')) : null,
  );
}
