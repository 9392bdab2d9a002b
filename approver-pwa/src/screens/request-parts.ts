import type { ApprovalParty } from '@countersign/shared';
import { isApiError } from '../api/index.ts';
import { confirmDialog } from '../ui/confirm-dialog.ts';
import { h } from '../ui/dom.ts';
import { errorMessage } from './messages.ts';
import { asParty } from './request-facts.ts';
import { WRONG_CODE_TEXT } from './request-result.ts';

/** Asks before "this wasn't me": it denies, and blocks the agent until an administrator clears it. */
export function confirmReport(parent: HTMLElement, clientName: string): Promise<boolean> {
  return confirmDialog({
    parent,
    testid: 'report-dialog',
    title: 'Report this request?',
    body: [`Use this if you did not ask for this, or you don’t recognise it. Countersign denies the request and blocks ${clientName} from sending you requests until your administrator clears it.`, 'You confirm with your passkey.'],
    confirmLabel: 'Deny and report',
    danger: true,
  });
}

/** What a reviewer is told about their part. */
export function reviewerNote(party: ApprovalParty): HTMLElement {
  return h('p', { class: 'banner reviewer-note', testid: 'reviewer-note' }, `You are asked to review this as ${asParty(party)}. Your passkey approves or denies exactly the action below; it goes ahead only when everyone under “Approvals needed” has approved.`);
}

/** The sentence for a failed decision; a wrong code has denied the request (see {@link WRONG_CODE_TEXT}). */
export function describeFailure(error: unknown): string {
  if (isApiError(error, 'wrong_binding_code')) return WRONG_CODE_TEXT;
  return errorMessage(error);
}

/** The way back to the inbox, at the top of a request. */
export function backLink(): HTMLElement {
  return h('a', { class: 'back-link', attrs: { href: '#/' } }, h('span', { attrs: { 'aria-hidden': 'true' } }, '‹ '), 'Requests');
}

/**
 * The mark of a request the operator's console sent as a test (`RequestDisplay.test`, computed by
 * the server from the client): it looks like any other otherwise, and can never be carried out.
 */
export function testBadge(): HTMLElement {
  return h('p', { class: 'test-badge', testid: 'test-badge' }, 'Test request');
}

/** After the decision the message is only a reminder of which request this was. */
export function bindingLine(message: string): HTMLElement {
  return h('p', { class: 'binding-line' }, 'Message: ', h('span', { class: 'code', testid: 'binding-message' }, message));
}

/**
 * A reviewer's view of the binding message: it is shown where the customer made the request, not
 * to the reviewer, so they are told whose it is and asked to compare nothing.
 */
export function reviewerBindingLine(message: string): HTMLElement {
  return h('p', { class: 'binding-line', testid: 'reviewer-binding' }, 'The customer checks this message against what the agent showed them: ', h('span', { class: 'code', testid: 'binding-message' }, message), '. You don’t need to.');
}

/** Before the decision: the message the person must compare with what the agent showed them. */
export function bindingBox(message: string): HTMLElement {
  return h(
    'section',
    { class: 'binding', attrs: { 'aria-labelledby': 'binding-label' } },
    h('p', { class: 'binding-label', attrs: { id: 'binding-label' } }, 'Check this message matches:'),
    h('p', { class: 'binding-code', testid: 'binding-message' }, message),
    h('p', { class: 'hint' }, 'It is shown where the request was made. If it is not the same, deny.'),
  );
}
