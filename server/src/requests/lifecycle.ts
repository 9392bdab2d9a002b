import type { ApprovalParty, OutcomeReport, RequestState } from '@countersign/shared';
import type { BoundedIncrement, Fields, Guard } from '../store/index.ts';
import { MANDATE_FIELDS, mandateOf, type MandateSpend } from './mandate-fields.ts';
import { approvalField, evidenceField, fromFields, type ApprovalRequest } from './request-record.ts';
import type { RequestRef } from './request-deadlines.ts';

/**
 * The life of an approval request, in one place (docs/reliability.md "The request lifecycle";
 * the states are those of the design contract, "Request states"). Every change of a request's record goes through one of the
 * operations below: each owns its guards and its field names, and is one compare-and-swap that
 * also writes the {@link Transition} as an outbox entry in the same atomic step (`outbox.ts`).
 * What follows a transition (audit, history, live updates, deadlines, pushes, client
 * notifications) subscribes to that entry where the app is composed (`consequences.ts`), and is
 * delivered at least once, from any instance, even after a crash between the swap and its
 * consequences.
 *
 *   propose                     → pending
 *   pending  ─approveParty─→ pending      (one party of several; the others still to come)
 *   pending  ─approve──────→ approved     (the last party)
 *   pending  ─deny─────────→ denied
 *   pending  ─escalate─────→ pending      (a window of the tier's chain passed: handed to the next role)
 *   pending  ─expire───────→ expired      (the decision deadline passed)
 *   approved ─issueToken───→ approved     (once: the token is bound to the request)
 *   approved ─redeem───────→ redeemed     (once, docs/design.md guarantee 7)
 *   approved ─expire───────→ expired      (not redeemed in time)
 *   redeemed ─reportOutcome→ redeemed     (outcome unknown → succeeded | failed, once)
 *   redeemed ─flagOutcome──→ redeemed     (the outcome is overdue: flagged once, still unknown)
 *
 * A mandate (docs/mandates.md) stays `approved` while it runs: its approval lasts until its
 * `ends_at`, each spend is a `spend` that leaves it approved, and it ends as `expired`, at its end
 * or when revoked (`expiry_reason: mandate_revoked`). The fixed state list is unchanged.
 *
 *   approved ─spend────────→ approved     (one payment within the bounds: counters raised, spend recorded)
 *   approved ─revoke───────→ expired      (the person or an operator stops the mandate)
 *   approved | expired ─reportSpendOutcome→ (unchanged)  (a spend's outcome, once)
 *   approved | expired ─flagSpendOutcome──→ (unchanged)  (a spend's outcome is overdue: flagged once, still unknown)
 *
 * The jobs that follow keep marks of their own on the record (`pushed_at:<sub>`, `notified_at`,
 * `notify_failed_at`, `expiry_pushed_at`), each written by a guarded write of its job so that a job
 * run twice acts once. Those say what a job did; they never change the request's state.
 */
export const TRANSITIONS = {
  propose: { from: [], to: 'pending' },
  approveParty: { from: ['pending'], to: 'pending' },
  approve: { from: ['pending'], to: 'approved' },
  deny: { from: ['pending'], to: 'denied' },
  escalate: { from: ['pending'], to: 'pending' },
  expire: { from: ['pending', 'approved'], to: 'expired' },
  issueToken: { from: ['approved'], to: 'approved' },
  redeem: { from: ['approved'], to: 'redeemed' },
  reportOutcome: { from: ['redeemed'], to: 'redeemed' },
  flagOutcome: { from: ['redeemed'], to: 'redeemed' },
  spend: { from: ['approved'], to: 'approved' },
  revoke: { from: ['approved'], to: 'expired' },
  // A spend's outcome may arrive after its mandate ended: the state is not guarded, nor changed.
  reportSpendOutcome: { from: ['approved', 'expired'], to: 'approved' },
  flagSpendOutcome: { from: ['approved', 'expired'], to: 'approved' },
} as const satisfies Record<string, { from: readonly RequestState[]; to: RequestState }>;

/** The operations of {@link TRANSITIONS}. */
export type TransitionOp = keyof typeof TRANSITIONS;

/** Why a request is denied: a party said no, the person said "this wasn't me", or the person picked a wrong number-matching code. */
export type DenialCause = 'denied' | 'fraud_reported' | 'wrong_binding_code';

/**
 * One transition as its outbox entry records it: what happened, when (epoch ms), and what the
 * record does not say itself. Everything else its consequences need is read from the record.
 */
export type Transition =
  | { op: 'propose'; at: number }
  | { op: 'approveParty'; at: number; party: ApprovalParty; waiting_for: ApprovalParty[] }
  | { op: 'approve'; at: number; party: ApprovalParty }
  /** `pick`: a wrong number-matching pick's own id, so its refusal is audited once on every path. */
  | { op: 'deny'; at: number; party: ApprovalParty; cause: DenialCause; sub: string; device_id: string; credential_id: string; pick?: string }
  /** `step`: the chain's step now reached (1 for the first hand-over); `from`: who held it until now. */
  | { op: 'escalate'; at: number; step: number; from: ApprovalParty[]; to: ApprovalParty }
  /** `reason` `escalation_exhausted`: the last role of the chain let the request run out too. */
  | { op: 'expire'; at: number; from: 'pending' | 'approved'; reason?: 'escalation_exhausted' }
  | { op: 'issueToken'; at: number; jti: string; expires_in: number }
  | { op: 'redeem'; at: number; redemption_id: string }
  | { op: 'reportOutcome'; at: number; redemption_id: string; status: OutcomeReport['status']; reference?: string }
  | { op: 'flagOutcome'; at: number; redemption_id: string }
  | { op: 'spend'; at: number; redemption_id: string; transaction_id: string; amount_minor: number; currency: string; payee_id: string }
  /** `by`: who revoked it (a device id, or `admin`); `channel` where from. */
  | { op: 'revoke'; at: number; by: string; channel: 'device' | 'admin' }
  | { op: 'reportSpendOutcome'; at: number; redemption_id: string; transaction_id: string; status: OutcomeReport['status']; reference?: string }
  /** `spent_at`: when the spend was made (epoch ms), for the audit's `seconds_since_redeemed`. */
  | { op: 'flagSpendOutcome'; at: number; redemption_id: string; transaction_id: string; spent_at: number };

/** The operations only a mandate's request takes (docs/mandates.md). */
export const MANDATE_OPS = ['spend', 'revoke', 'reportSpendOutcome', 'flagSpendOutcome'] as const satisfies readonly TransitionOp[];

/**
 * One spend as {@link Lifecycle.spend} applies it: the token and mandate it is made under, the
 * spend to record, and the counters of its period with their bounds.
 */
export interface SpendInput {
  jti: string;
  /** The mandate's `details_hash` (the token's claim). */
  details_hash: string;
  spend: MandateSpend;
  /** The currency's `total_minor`: the period's total after this spend must be at most this. */
  total_max: number;
  /** `max_spends`, when the mandate sets one. */
  count_max?: number;
}

/** The guards of a spend, in this order: what {@link SpendInput} refusals are read from (`failedGuard`). */
export const SPEND_GUARDS = ['state', 'token', 'details_hash', 'ends_at', 'starts_at', 'transaction', 'total', 'count'] as const;

/** The `once` token of a wrong number-matching pick's refusal (`AuditLog.record`), whichever path audits it. */
export function wrongPickToken(pick: string): string {
  return `pick.${pick}`;
}

/** The outbox field of the creation's entry: `ob:0` (transitions after it count `seq` from 1). */
export const PROPOSE_SEQ = 0;

/** The hash field of the outbox entry with sequence number `seq`. */
export function outboxField(seq: number): string {
  return `ob:${seq}`;
}

/** The outbox entries a record holds, oldest first, each with its sequence number. Unreadable ones are skipped. */
export function outboxOf(fields: Fields): { seq: number; transition: Transition }[] {
  const entries: { seq: number; transition: Transition }[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const match = /^ob:(\d{1,9})$/.exec(field);
    if (!match) continue;
    const transition = parseTransition(value);
    if (transition) entries.push({ seq: Number(match[1]), transition });
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

function parseTransition(text: string): Transition | null {
  try {
    const value = JSON.parse(text) as Transition;
    return value && typeof value === 'object' && value.op in TRANSITIONS && Number.isSafeInteger(value.at) ? value : null;
  } catch {
    return null;
  }
}

/**
 * A compare-and-swap of one request's record that writes `transition` as an outbox entry with it,
 * and delivers the entry's consequences when it applies (see `outbox.ts`).
 */
export type Swap = (ref: RequestRef, guards: Guard[], set: Fields, transition: Transition, options?: { ttlSeconds?: number; increments?: BoundedIncrement[] }) => Promise<SwapResult>;

/** The answer of a {@link Swap}: the request after it, or, when a guard failed, the record as it stands (null: gone). */
export type SwapResult = { ok: true; request: ApprovalRequest; fields: Fields } | { ok: false; fields: Fields | null; failedGuard?: number };

/** Lifetimes the operations write, seconds. */
export interface LifecycleTimes {
  /** Approval token lifetime when the tier names none (`APPROVAL_TOKEN_TTL`). */
  approvalTokenTtl: number;
  /** How long a request that is over keeps answering (at least 600 s, docs/design.md "The request lifecycle"). */
  graceSeconds: number;
  /** How long a redeemed request is kept, with its outcome. */
  retentionSeconds: number;
}

/** One party's passkey approval, as {@link Lifecycle.approve} records it. */
export interface PartyApprovalInput {
  party: ApprovalParty;
  sub: string;
  device_id: string;
  credential_id: string;
  /** A mandate's approval: its evidence as JSON, written to `evidence:<party>`, and that JSON's hash (kept in the approval). */
  evidence?: { json: string; hash: string };
}

/**
 * The typed operations on a request: the only code that writes a request's state. Each answers
 * the swap's result; a refusal (a guard that failed) changes nothing, and its caller says why from
 * the record it gets back.
 */
export interface Lifecycle {
  /**
   * One party's approval of a pending request, from the record as `fields` reads it: `approve`
   * when it is the last party missing (the request becomes `approved`, its approval token lifetime
   * starting now), else `approveParty`. The guards pin the state, the deadline, this party's slot
   * (empty) and every other party's slot exactly as read, so of two parties approving at once
   * exactly one is last; the other's swap fails, and it retries from a fresh read.
   */
  approve(fields: Fields, approval: PartyApprovalInput, now: number): Promise<SwapResult>;
  /** `pending → denied` before the decision deadline: any one party saying no denies it. */
  deny(ref: RequestRef, decision: Omit<Extract<Transition, { op: 'deny' }>, 'op' | 'at'>, now: number): Promise<SwapResult>;
  /**
   * `pending → pending`, handed to the next role of its chain: only while pending and before its
   * deadline, only once the window of the step it is at has passed, and only from that step (the
   * guard pins `escalation_step` as `request` read it), so of two sweeps only one hands it on, and
   * an approval that read the step before cannot land after it (see `approve`). Not ok (nothing
   * written) when there is no step left or its time has not come.
   */
  escalate(request: ApprovalRequest, now: number): Promise<SwapResult>;
  /**
   * `pending | approved → expired`, once the deadline of the state `request` was read in has
   * passed; the guard pins that state and that deadline, so it never races a decision or a
   * redemption that beat the deadline. Not ok for a request in any other state.
   */
  expire(request: ApprovalRequest, now: number): Promise<SwapResult>;
  /** Binds a token (`jti`) to an approved request, once, while the approval lasts; `extra` fields are written with it. */
  issueToken(request: ApprovalRequest, token: { jti: string; expires_in: number }, extra: Fields, now: number): Promise<SwapResult>;
  /** `approved → redeemed`, once, guarded by the token's `jti`, the approval's deadline and the presented `details_hash`. */
  redeem(ref: RequestRef, presented: { jti: string; details_hash: string; redemption_id: string }, now: number): Promise<SwapResult>;
  /** Outcome `unknown → succeeded | failed` of the redemption `redemption_id`, once. */
  reportOutcome(ref: RequestRef, redemptionId: string, report: OutcomeReport, now: number): Promise<SwapResult>;
  /** Flags a redemption whose outcome is overdue, once (it stays `unknown`). */
  flagOutcome(ref: RequestRef, redemptionId: string, now: number): Promise<SwapResult>;
  /**
   * A mandate's spend, `approved → approved`, in one compare-and-swap: guarded (in the order of
   * {@link SPEND_GUARDS}) by the state, the token's `jti`, the mandate's `details_hash`, its end
   * (`approval_expires_at > now`) and start (`mandate_starts_at ≤ now`), the spend's
   * `transaction_id` not spent yet, and the period's total and count raised within their bounds.
   */
  spend(ref: RequestRef, input: SpendInput, now: number): Promise<SwapResult>;
  /**
   * `approved → expired` with `expiry_reason: mandate_revoked`, once: no spend lands after it.
   * Only a mandate's request (its record has `mandate_starts_at`), and only before its end.
   */
  revoke(ref: RequestRef, by: { by: string; channel: 'device' | 'admin' }, now: number): Promise<SwapResult>;
  /** A spend's outcome `unknown → succeeded | failed`, once; the request's state is not touched. */
  reportSpendOutcome(ref: RequestRef, spend: { redemption_id: string; transaction_id: string }, report: OutcomeReport, now: number): Promise<SwapResult>;
  /** Flags a spend whose outcome is overdue, once (it stays `unknown`); the request's state is not touched. */
  flagSpendOutcome(ref: RequestRef, spend: { redemption_id: string; transaction_id: string; spent_at: number }, now: number): Promise<SwapResult>;
}

const inState = (state: RequestState): Guard => ({ field: 'state', op: 'eq', value: state });
/** Pins the escalation step a request was read at (absent until its first hand-over). */
const stepGuard = (request: ApprovalRequest): Guard =>
  request.escalation_step ? { field: 'escalation_step', op: 'eq', value: String(request.escalation_step) } : { field: 'escalation_step', op: 'absent' };

/**
 * The states a spend's outcome is reported or flagged in (the table's `from`: approved, expired),
 * as guards: a spend is only ever recorded on an approved mandate, so no other state holds one.
 */
const spendOutcomeStates: Guard[] = (['pending', 'denied', 'redeemed'] as const).map((state) => ({ field: 'state', op: 'ne', value: state }));

/**
 * The {@link Lifecycle} over a {@link Swap}. Pure: the guards, the fields and the entry of each
 * operation; the swap does the writing and the delivering.
 */
export function createLifecycle(swap: Swap, times: LifecycleTimes): Lifecycle {
  return {
    approve(fields, approval, now) {
      const current = fromFields(fields);
      const ref = { tenant: current.tenant, auth_req_id: current.auth_req_id };
      // A party that does not hold the request (any more: it was escalated) approves nothing.
      if (!(current.parties ?? ['customer']).includes(approval.party)) return Promise.resolve({ ok: false, fields });
      const others = (current.parties ?? ['customer']).filter((other) => other !== approval.party);
      const last = others.every((other) => fields[approvalField(other)] !== undefined);
      const guards: Guard[] = [
        inState('pending'),
        { field: 'expires_at', op: 'gt', value: now },
        { field: approvalField(approval.party), op: 'absent' },
        // The holder as read: an escalation that landed since hands the request to someone else.
        stepGuard(current),
        ...others.map((other): Guard => {
          const held = fields[approvalField(other)];
          return held === undefined ? { field: approvalField(other), op: 'absent' } : { field: approvalField(other), op: 'eq', value: held };
        }),
      ];
      const given = { sub: approval.sub, device_id: approval.device_id, credential_id: approval.credential_id, at: now, ...(approval.evidence ? { evidence_hash: approval.evidence.hash } : {}) };
      const written = { [approvalField(approval.party)]: JSON.stringify(given), ...(approval.evidence ? { [evidenceField(approval.party)]: approval.evidence.json } : {}) };
      if (!last) {
        const waiting = others.filter((other) => fields[approvalField(other)] === undefined);
        return swap(ref, guards, written, { op: 'approveParty', at: now, party: approval.party, waiting_for: waiting });
      }
      const tokenLifetime = current.token_lifetime ?? times.approvalTokenTtl;
      // A mandate's approval (and so its token) lasts until its end, not a token lifetime; its
      // record is kept a retention period past it, as the evidence of its spends.
      const mandate = mandateOf(current.authorization_details);
      const approvalEnds = mandate ? Date.parse(mandate.ends_at) : now + tokenLifetime * 1000;
      const ttlSeconds = mandate ? Math.max(1, Math.ceil((approvalEnds - now) / 1000)) + times.retentionSeconds : tokenLifetime + times.graceSeconds;
      return swap(
        ref,
        guards,
        {
          ...written,
          state: 'approved',
          decided_at: String(now),
          decided_by: approval.device_id,
          approval_expires_at: String(approvalEnds),
          ...(mandate ? { [MANDATE_FIELDS.startsAt]: String(Date.parse(mandate.starts_at)) } : {}),
        },
        { op: 'approve', at: now, party: approval.party },
        { ttlSeconds },
      );
    },
    deny(ref, decision, now) {
      return swap(
        ref,
        [inState('pending'), { field: 'expires_at', op: 'gt', value: now }],
        { state: 'denied', decided_at: String(now), decided_by: decision.device_id, ...(decision.cause === 'fraud_reported' ? { fraud_reported_at: String(now) } : {}) },
        { op: 'deny', at: now, ...decision },
        { ttlSeconds: times.graceSeconds },
      );
    },
    async escalate(request, now) {
      const step = request.escalation_step ?? 0;
      const next = request.escalation?.[step];
      if (request.state !== 'pending' || !next || now < next.at || now >= request.expires_at) return { ok: false, fields: null };
      return swap(
        request,
        [inState('pending'), { field: 'expires_at', op: 'gt', value: now }, stepGuard(request)],
        { escalation_step: String(step + 1) },
        { op: 'escalate', at: now, step: step + 1, from: request.parties ?? ['customer'], to: next.party },
      );
    },
    async expire(request, now) {
      if (request.state !== 'pending' && request.state !== 'approved') return { ok: false, fields: null };
      const deadlineField = request.state === 'pending' ? 'expires_at' : 'approval_expires_at';
      // Every role of the chain was asked and none acted: said so, loudly, in the record and the audit.
      const exhausted = request.state === 'pending' && (request.escalation?.length ?? 0) > 0 && request.escalation_step === request.escalation!.length;
      return swap(
        request,
        [inState(request.state), { field: deadlineField, op: 'lt', value: now + 1 }, ...(exhausted ? [stepGuard(request)] : [])],
        { state: 'expired', expired_at: String(now), ...(exhausted ? { expiry_reason: 'escalation_exhausted' } : {}) },
        { op: 'expire', at: now, from: request.state, ...(exhausted ? { reason: 'escalation_exhausted' as const } : {}) },
        // An approved mandate that ran out keeps its spends for the retention period (evidence).
        { ttlSeconds: request.state === 'approved' && mandateOf(request.authorization_details) ? times.retentionSeconds : times.graceSeconds },
      );
    },
    issueToken(request, token, extra, now) {
      return swap(
        request,
        [inState('approved'), { field: 'token_jti', op: 'absent' }, { field: 'approval_expires_at', op: 'gt', value: now }],
        { token_jti: token.jti, token_issued_at: String(now), ...extra },
        { op: 'issueToken', at: now, jti: token.jti, expires_in: token.expires_in },
      );
    },
    redeem(ref, presented, now) {
      return swap(
        ref,
        [
          inState('approved'),
          { field: 'token_jti', op: 'eq', value: presented.jti },
          { field: 'approval_expires_at', op: 'gt', value: now },
          { field: 'details_hash', op: 'eq', value: presented.details_hash },
        ],
        { state: 'redeemed', redemption_id: presented.redemption_id, redeemed_at: String(now), outcome_status: 'unknown' },
        { op: 'redeem', at: now, redemption_id: presented.redemption_id },
        { ttlSeconds: times.retentionSeconds },
      );
    },
    reportOutcome(ref, redemptionId, report, now) {
      return swap(
        ref,
        [inState('redeemed'), { field: 'redemption_id', op: 'eq', value: redemptionId }, { field: 'outcome_status', op: 'eq', value: 'unknown' }],
        {
          outcome_status: report.status,
          ...(report.reference ? { outcome_reference: report.reference } : {}),
          ...(report.reason ? { outcome_reason: report.reason } : {}),
          outcome_at: String(now),
        },
        { op: 'reportOutcome', at: now, redemption_id: redemptionId, status: report.status, ...(report.reference ? { reference: report.reference } : {}) },
      );
    },
    spend(ref, input, now) {
      const { spend } = input;
      return swap(
        ref,
        [
          inState('approved'),
          { field: 'token_jti', op: 'eq', value: input.jti },
          { field: 'details_hash', op: 'eq', value: input.details_hash },
          { field: 'approval_expires_at', op: 'gt', value: now },
          { field: MANDATE_FIELDS.startsAt, op: 'lt', value: now + 1 },
          { field: MANDATE_FIELDS.spend(spend.transaction_id), op: 'absent' },
        ],
        { [MANDATE_FIELDS.spend(spend.transaction_id)]: JSON.stringify(spend), [MANDATE_FIELDS.redemption(spend.redemption_id)]: spend.transaction_id },
        { op: 'spend', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, amount_minor: spend.amount_minor, currency: spend.currency, payee_id: spend.payee.id },
        {
          increments: [
            { field: MANDATE_FIELDS.total(spend.period, spend.currency), by: spend.amount_minor, max: input.total_max },
            // Without `max_spends` the count is still kept (the view shows it), bounded by the most any mandate allows.
            { field: MANDATE_FIELDS.count(spend.period), by: 1, max: input.count_max ?? Number.MAX_SAFE_INTEGER },
          ],
        },
      );
    },
    revoke(ref, by, now) {
      return swap(
        ref,
        [
          inState('approved'),
          // Only a mandate's record has a start (written at its approval): a one-off approval is not revoked.
          { field: MANDATE_FIELDS.startsAt, op: 'present' },
          // A mandate past its end has ended (the sweep marks it `expired`): it is not revoked after the fact.
          { field: 'approval_expires_at', op: 'gt', value: now },
        ],
        { state: 'expired', expired_at: String(now), expiry_reason: 'mandate_revoked', revoked_at: String(now), revoked_by: by.by },
        { op: 'revoke', at: now, by: by.by, channel: by.channel },
        { ttlSeconds: times.retentionSeconds },
      );
    },
    reportSpendOutcome(ref, spend, report, now) {
      return swap(
        ref,
        [
          ...spendOutcomeStates,
          { field: MANDATE_FIELDS.redemption(spend.redemption_id), op: 'eq', value: spend.transaction_id },
          { field: MANDATE_FIELDS.outcome(spend.transaction_id), op: 'absent' },
        ],
        { [MANDATE_FIELDS.outcome(spend.transaction_id)]: JSON.stringify({ status: report.status, ...(report.reference ? { reference: report.reference } : {}), ...(report.reason ? { reason: report.reason } : {}), at: now }) },
        { op: 'reportSpendOutcome', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, status: report.status, ...(report.reference ? { reference: report.reference } : {}) },
      );
    },
    flagSpendOutcome(ref, spend, now) {
      return swap(
        ref,
        [
          ...spendOutcomeStates,
          { field: MANDATE_FIELDS.redemption(spend.redemption_id), op: 'eq', value: spend.transaction_id },
          { field: MANDATE_FIELDS.outcome(spend.transaction_id), op: 'absent' },
          { field: MANDATE_FIELDS.flagged(spend.transaction_id), op: 'absent' },
        ],
        { [MANDATE_FIELDS.flagged(spend.transaction_id)]: String(now) },
        { op: 'flagSpendOutcome', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, spent_at: spend.spent_at },
      );
    },
    flagOutcome(ref, redemptionId, now) {
      return swap(
        ref,
        [inState('redeemed'), { field: 'redemption_id', op: 'eq', value: redemptionId }, { field: 'outcome_status', op: 'eq', value: 'unknown' }, { field: 'outcome_flagged_at', op: 'absent' }],
        { outcome_flagged_at: String(now) },
        { op: 'flagOutcome', at: now, redemption_id: redemptionId },
      );
    },
  };
}
