import type { RequestDisplay } from '@countersign/shared';
import { h } from '../ui/dom.ts';

/**
 * What became of a request, from the server's state and outcome:
 * `approved` (not yet used), `awaiting_outcome` (redeemed, no report yet), `executed`, `failed`,
 * `denied`, `expired`; `pending` while the person can still decide.
 */
export type ResultKind = 'pending' | 'approved' | 'awaiting_outcome' | 'executed' | 'failed' | 'denied' | 'expired';

/** A result in words. */
export interface ResultText {
  kind: ResultKind;
  headline: string;
  detail: string;
}

/** Describes what became of a request; the words come from its state, never from the client. */
export function describeResult(request: Pick<RequestDisplay, 'state' | 'outcome'>): ResultText {
  switch (request.state) {
    case 'pending':
      return { kind: 'pending', headline: 'Waiting for you', detail: 'Approve or deny this request.' };
    case 'approved':
      return { kind: 'approved', headline: 'Approved', detail: 'The agent may now carry out this action, once. This screen shows when it has.' };
    case 'denied':
      return { kind: 'denied', headline: 'Denied', detail: 'The request will not go ahead.' };
    case 'expired':
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
export function resultPanel(request: RequestDisplay): HTMLElement {
  const result = describeResult(request);
  const outcome = request.outcome;
  const reference = outcome && outcome.status !== 'unknown' ? outcome.reference : undefined;
  const reason = outcome && outcome.status !== 'unknown' ? outcome.reason : undefined;
  return h(
    'section',
    { class: `result result-${result.kind}`, testid: 'result', attrs: { 'data-result': result.kind, role: 'status', 'aria-label': 'Result', tabindex: -1 } },
    h('p', { class: 'result-headline', testid: 'result-headline' }, h('span', { class: 'result-icon', attrs: { 'aria-hidden': 'true' } }, ICONS[result.kind]), result.headline),
    h('p', { class: 'result-detail' }, result.detail),
    reference ? h('p', { class: 'result-extra' }, 'Reference: ', h('span', { class: 'code', testid: 'outcome-reference' }, reference)) : null,
    reason ? h('p', { class: 'result-extra' }, 'Reason: ', h('span', { testid: 'outcome-reason' }, reason)) : null,
  );
}

const ICONS: Record<ResultKind, string> = {
  pending: '…',
  approved: '✓',
  awaiting_outcome: '⋯',
  executed: '✓',
  failed: '!',
  denied: '✕',
  expired: '–',
};
