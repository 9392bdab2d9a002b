import type { ApprovalParty, RequestDisplay } from '@countersign/shared';
import type { RequestView } from '../api/index.ts';
import { h } from '../ui/dom.ts';
import { errorBanner } from './messages.ts';
import { roleName } from './request-facts.ts';

/** One thing the person can do on a pending request; each asks for the passkey. */
export type Choice = { kind: 'approve'; code?: string } | { kind: 'deny' } | { kind: 'report' };

/** The `data-testid` of a choice's button: `approve`, `code-42`, `deny`, `report`. */
export function choiceTestId(choice: Choice): string {
  return choice.kind === 'approve' && choice.code !== undefined ? `code-${choice.code}` : choice.kind;
}

/** What {@link decisionBar} draws from. */
export interface DecisionBarProps {
  request: RequestDisplay;
  options: NonNullable<RequestView['options']>;
  /** The choice whose passkey prompt is open, if any: every button waits meanwhile. */
  busy: Choice | null;
  error: string | null;
  choose(choice: Choice): void;
}

/**
 * The decision bar, sticky at the bottom of the screen while the details scroll under it:
 *
 * - under number matching, the three candidate codes in the server's order as big buttons (one
 *   is the code the agent shows; picking it approves), then Deny and "This wasn't me";
 * - otherwise Deny then Approve ("Approve as reviewer" for a reviewer), and "This wasn't me";
 * - with nothing left to approve (the customer approved, others have not yet), Deny and "This wasn't me".
 *
 * Deny comes before Approve in the tab order, and nothing here takes the focus by itself.
 * "This wasn't me" shows only where the server offers it (`viewer.can_report`).
 */
export function decisionBar({ request, options, busy, error, choose }: DecisionBarProps): HTMLElement {
  const disabled = busy !== null;
  const button = (choice: Choice, label: string, className: string, extra: Record<string, string> = {}) => h('button', { class: `btn ${className}`, testid: choiceTestId(choice), attrs: { type: 'button', disabled, ...extra }, on: { click: () => choose(choice) } }, label);
  const codes = request.number_matching && options.approve_by_code ? request.number_matching.candidates.filter((code) => options.approve_by_code?.[code]) : null;
  const party = request.viewer?.party ?? null;
  const report = request.viewer?.can_report ? button({ kind: 'report' }, 'This wasn’t me', 'btn-report', { 'aria-describedby': 'report-hint' }) : null;
  const deny = button({ kind: 'deny' }, 'Deny', 'btn-deny', { 'aria-describedby': 'decision-hint' });

  let choices: Array<HTMLElement | null>;
  if (codes && codes.length > 0) {
    choices = [
      h('p', { class: 'codes-label', attrs: { id: 'codes-label' } }, 'To approve, pick the agent’s code'),
      h('p', { class: 'hint codes-hint', attrs: { id: 'decision-hint' } }, 'The agent’s screen shows one of these three. A wrong pick denies the request; not sure? Deny.'),
      h('div', { class: 'code-buttons', testid: 'code-buttons', attrs: { role: 'group', 'aria-labelledby': 'codes-label', 'aria-describedby': 'decision-hint' } }, ...codes.map((code) => button({ kind: 'approve', code }, code, 'btn-code', { 'data-code': code, 'aria-label': `Approve with code ${code}` }))),
      h('div', { class: `decision-buttons${report ? '' : ' decision-buttons-single'}` }, deny, report),
    ];
  } else if (options.approve && party) {
    choices = [
      h('p', { class: 'hint decision-hint', attrs: { id: 'decision-hint' } }, 'Each asks for your passkey.'),
      h('div', { class: 'decision-buttons' }, deny, button({ kind: 'approve' }, party === 'customer' ? approveWord(request) : 'Approve as reviewer', 'btn-approve', { 'aria-describedby': 'decision-hint' })),
      report,
    ];
  } else {
    choices = [h('p', { class: 'hint decision-hint', attrs: { id: 'decision-hint' } }, 'You can still deny it until everyone has approved. It asks for your passkey.'), h('div', { class: `decision-buttons${report ? '' : ' decision-buttons-single'}` }, deny, report)];
  }

  return h(
    'section',
    { class: 'decision-bar', testid: 'decision-bar', attrs: { 'aria-label': 'Your decision', 'data-number-matching': codes ? 'true' : null } },
    error ? errorBanner(error) : null,
    ...choices,
    report ? h('p', { class: 'visually-hidden', attrs: { id: 'report-hint' } }, 'Denies the request and blocks this agent from asking you again.') : null,
    h('p', { class: 'status decision-status', testid: 'decision-status', attrs: { role: 'status' } }, busy ? busyText(busy, party) : ''),
  );
}

/**
 * The customer's approve button says what approving does, in the server's word for the action
 * (`ActionDisplay.verb`: `Pay`, `Delete`, `Send`, a tool's name), never a word of the app's own: a
 * refund is a payment to the customer, and the app must not call it anything the server did not.
 * A batch whose actions share one verb (three payments) says it once; a mixed batch says `Approve`.
 */
export function approveWord(request: Pick<RequestDisplay, 'actions'>): string {
  const verbs = new Set(request.actions.map((action) => action.verb));
  const [only] = verbs;
  return verbs.size === 1 && only ? only : 'Approve';
}

function busyText(choice: Choice, party: ApprovalParty | null): string {
  switch (choice.kind) {
    case 'approve':
      return choice.code !== undefined ? `Confirm with your passkey to approve with code ${choice.code}…` : `Confirm with your passkey to approve${party && party !== 'customer' ? ` as ${roleName(party.slice('role:'.length))}` : ''}…`;
    case 'deny':
      return 'Confirm with your passkey to deny…';
    case 'report':
      return 'Confirm with your passkey to deny and report…';
  }
}
