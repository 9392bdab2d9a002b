import type { RequestDisplay } from '@countersign/shared';
import { h } from '../ui/dom.ts';
import { waitingFor } from './request-facts.ts';

/**
 * What became of a request, from the server's state and outcome:
 * `waiting` (still pending, this person's part is done, others must approve), `approved` (not yet
 * used), `awaiting_outcome` (redeemed, no report yet), `executed`, `failed`, `denied`, `expired`;
 * `pending` while the person can still decide.
 */
export type ResultKind = 'pending' | 'waiting' | 'approved' | 'awaiting_outcome' | 'executed' | 'failed' | 'denied' | 'expired';

/** A result in words. */
export interface ResultText {
  kind: ResultKind;
  headline: string;
  detail: string;
}

/** What the screen knows beyond the server's display. */
export interface ResultContext {
  /** This person just said "this wasn't me" about it. */
  reported?: boolean;
  /** This person just picked a code that was not the agent's, which denied it. */
  wrongCode?: boolean;
}

/**
 * What a wrong number-matching pick did, and what to do now. The server denies the request at the
 * first wrong pick (otherwise tapping each code in turn would approve), so there is no "pick again".
 */
export const WRONG_CODE_TEXT = 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.';

/**
 * Describes what became of a request; the words come from its state, never from the client. A
 * pending request this person has nothing left to approve on, with approvals given, is `waiting`.
 */
export function describeResult(request: Pick<RequestDisplay, 'state' | 'outcome'> & Partial<Pick<RequestDisplay, 'approvals' | 'viewer' | 'client_name' | 'actions'>>, context: ResultContext = {}): ResultText {
  const standing = request.actions?.[0]?.type === 'mandate';
  switch (request.state) {
    case 'pending': {
      const approvals = request.approvals ?? [];
      if (request.viewer && request.viewer.party === null && approvals.some((approval) => approval.status === 'approved')) {
        const waiting = waitingFor({ approvals });
        return { kind: 'waiting', headline: 'Approved, waiting for others', detail: `Nothing happens until everyone has approved.${waiting ? ` Still needed: ${waiting}.` : ''}` };
      }
      return { kind: 'pending', headline: 'Waiting for you', detail: 'Approve or deny this request.' };
    }
    case 'approved':
      // A mandate is used many times, each spend shown under Mandates, never on this screen.
      if (standing) return { kind: 'approved', headline: 'Approved', detail: 'The agent may now make payments within these bounds until the mandate ends. See each payment, or stop it, under Mandates.' };
      return { kind: 'approved', headline: 'Approved', detail: 'The agent may now carry out this action, once. This screen shows when it has.' };
    case 'denied':
      if (context.wrongCode) return { kind: 'denied', headline: 'Denied: wrong code', detail: WRONG_CODE_TEXT };
      return context.reported
        ? {
            kind: 'denied',
            headline: 'Denied and reported',
            detail: `The request will not go ahead, and ${request.client_name ?? 'this agent'} is blocked from sending you requests until your administrator clears it.`,
          }
        : { kind: 'denied', headline: 'Denied', detail: 'The request will not go ahead.' };
    case 'expired':
      if (standing) return { kind: 'expired', headline: 'Ended', detail: 'This mandate has ended or was stopped. No more payments can be made under it.' };
      return { kind: 'expired', headline: 'Expired', detail: 'This request is no longer valid. Nothing will happen.' };
    case 'redeemed': {
      const outcome = request.outcome;
      if (outcome?.status === 'succeeded') return { kind: 'executed', headline: 'Executed', detail: 'The agent reports that the action was carried out.' };
      if (outcome?.status === 'failed') return { kind: 'failed', headline: 'Failed', detail: 'The agent reports that the action could not be carried out.' };
      return { kind: 'awaiting_outcome', headline: 'Approved, in progress', detail: 'The agent has used your approval. Waiting for it to report the outcome.' };
    }
  }
}

/**
 * The result panel: `data-testid="result"` with `data-result` set to the {@link ResultKind}, so a
 * test can wait for `[data-testid=result][data-result=executed]`.
 */
export function resultPanel(request: RequestDisplay, context: ResultContext = {}): HTMLElement {
  const result = describeResult(request, context);
  const outcome = request.outcome;
  const reference = outcome && outcome.status !== 'unknown' ? outcome.reference : undefined;
  const reason = outcome && outcome.status !== 'unknown' ? outcome.reason : undefined;
  return h(
    'section',
    { class: `result result-${result.kind}`, testid: 'result', attrs: { 'data-result': result.kind, 'data-reported': context.reported ? 'true' : null, role: 'status', 'aria-label': 'Result', tabindex: -1 } },
    h('p', { class: 'result-headline', testid: 'result-headline' }, h('span', { class: 'result-icon', attrs: { 'aria-hidden': 'true' } }, ICONS[result.kind]), result.headline),
    h('p', { class: 'result-detail', testid: 'result-detail' }, result.detail),
    reference ? h('p', { class: 'result-extra' }, 'Reference: ', h('span', { class: 'code', testid: 'outcome-reference' }, reference)) : null,
    reason ? h('p', { class: 'result-extra' }, 'Reason: ', h('span', { testid: 'outcome-reason' }, reason)) : null,
  );
}

/** The marks drawn next to a result, and the history's badges. */
export const RESULT_ICONS: Record<ResultKind, string> = {
  pending: '…',
  waiting: '…',
  approved: '✓',
  awaiting_outcome: '⋯',
  executed: '✓',
  failed: '!',
  denied: '✕',
  expired: '–',
};
const ICONS = RESULT_ICONS;
