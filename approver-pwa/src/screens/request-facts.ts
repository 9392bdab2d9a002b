import type { ApprovalParty, PartyDisplay, RequestDisplay } from '@countersign/shared';
import { h } from '../ui/dom.ts';
import { formatWhen } from '../ui/format-time.ts';

/** Words for the shipped policy's tiers; another tier's name is shown as it is, capitalised. */
const TIER_NAMES: Record<string, string> = { standard: 'Standard', elevated: 'Elevated', high: 'High risk' };

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A role as people say it: `reviewer:finance` → `finance reviewer`; anything else with its separators as spaces. */
export function roleName(role: string): string {
  const [kind, ...rest] = role.split(':');
  if (kind === 'reviewer' && rest.length > 0) return `${rest.join(' ')} reviewer`.replace(/[-_]/g, ' ');
  return role.replace(/[:_-]/g, ' ');
}

/** A party within a sentence, with its article: `the customer`, `a finance reviewer`. */
export function asParty(party: ApprovalParty): string {
  if (party === 'customer') return 'the customer';
  const name = roleName(party.slice('role:'.length));
  return `${article(name)} ${name}`;
}

/** A party as people say it: `Customer`, or the role (`Finance reviewer`). */
export function partyName(party: ApprovalParty, label: string): string {
  return party === 'customer' ? 'Customer' : capitalise(roleName(label));
}

/** `a` or `an` before a noun, by its first letter (good enough for role names). */
export function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}

/**
 * The tier in one line, e.g. `High risk · needs a finance reviewer`, `Elevated · you check a code`:
 * the policy's name for it, the reviewers it needs besides the customer, and number matching when
 * this person has a code to pick.
 */
export function tierText(request: Pick<RequestDisplay, 'tier' | 'approvals' | 'number_matching'>): string {
  const reviewers = request.approvals.filter((approval) => approval.party !== 'customer').map((approval) => roleName(approval.label));
  const parts = [TIER_NAMES[request.tier] ?? capitalise(request.tier.replace(/[-_]/g, ' '))];
  if (reviewers.length > 0) parts.push(`needs ${reviewers.map((name) => `${article(name)} ${name}`).join(' and ')}`);
  if (request.number_matching) parts.push('you check a code');
  return parts.join(' · ');
}

/** The tier as a small labelled line under the request's title. */
export function tierLine(request: RequestDisplay): HTMLElement {
  return h('p', { class: `tier tier-${/^[a-z0-9-]+$/.test(request.tier) ? request.tier : 'other'}`, testid: 'tier', attrs: { 'data-tier': request.tier } }, h('span', { class: 'visually-hidden' }, 'Policy tier: '), tierText(request));
}

/**
 * Who holds a request on its tier's escalation chain, in one line, while it is pending: `Escalated:
 * now with an ops.` after a hand-over, and when the next one comes, `Goes to a manager at today, 14:05
 * if nobody decides.` Null when its tier has no chain, or nothing is left to say.
 * @see docs/escalation.md
 */
export function escalationText(request: Pick<RequestDisplay, 'state' | 'escalation'>, now: Date = new Date()): string | null {
  const chain = request.escalation;
  if (!chain || request.state !== 'pending') return null;
  const parts: string[] = [];
  if (chain.step > 0 && chain.holder[0]) parts.push(`Escalated: now with ${asParty(chain.holder[0])}.`);
  if (chain.next && chain.next_at) parts.push(`Goes to ${asParty(chain.next)} at ${formatWhen(chain.next_at, now)} if nobody decides.`);
  return parts.length === 0 ? null : parts.join(' ');
}

/** {@link escalationText} as a line under the tier, or null. */
export function escalationLine(request: RequestDisplay): HTMLElement | null {
  const text = escalationText(request);
  return text === null ? null : h('p', { class: 'escalation', testid: 'escalation', attrs: { 'data-step': String(request.escalation!.step) } }, text);
}

/**
 * Who must approve and where each stands, when it takes more than one person: `Customer: approved
 * 14:05`, `Finance reviewer: waiting`. `you` marks the party this person approves as (or approved as).
 */
export function approvalsList(request: RequestDisplay, you: ApprovalParty | null): HTMLElement | null {
  if (request.approvals.length < 2) return null;
  return h('section', { class: 'approvals', testid: 'approvals', attrs: { 'aria-labelledby': 'approvals-title' } }, h('h2', { class: 'approvals-title', attrs: { id: 'approvals-title' } }, 'Approvals needed'), h('ul', { class: 'approvals-list' }, ...request.approvals.map((approval) => approvalItem(approval, you))));
}

function approvalItem(approval: PartyDisplay, you: ApprovalParty | null): HTMLElement {
  const approved = approval.status === 'approved';
  return h(
    'li',
    { class: `approval approval-${approval.status}`, testid: 'approval', attrs: { 'data-party': approval.party, 'data-status': approval.status } },
    h('span', { class: 'approval-mark', attrs: { 'aria-hidden': 'true' } }, approved ? '✓' : '…'),
    h('span', { class: 'approval-who' }, partyName(approval.party, approval.label), approval.party === you ? ' (you)' : ''),
    h('span', { class: 'approval-status' }, approved ? `Approved${approval.approved_at ? ` ${formatWhen(approval.approved_at)}` : ''}` : 'Not yet'),
  );
}

/** The parties still waiting, in words: `Finance reviewer`, `Customer and Finance reviewer`. */
export function waitingFor(request: Pick<RequestDisplay, 'approvals'>): string {
  const names = request.approvals.filter((approval) => approval.status === 'waiting').map((approval) => partyName(approval.party, approval.label));
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
