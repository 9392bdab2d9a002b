import type { RequestState } from '@countersign/shared';
import type { Guard } from '../store/index.ts';
import type { ApprovalRequest } from './request-record.ts';

/** Guards `state` equal to `state`. */
export const inState = (state: RequestState): Guard => ({ field: 'state', op: 'eq', value: state });

/** Pins the escalation step a request was read at (absent until its first hand-over). */
export const stepGuard = (request: ApprovalRequest): Guard => (request.escalation_step ? { field: 'escalation_step', op: 'eq', value: String(request.escalation_step) } : { field: 'escalation_step', op: 'absent' });

/**
 * The states a spend's outcome is reported or flagged in (the table's `from`: approved, expired),
 * as guards: a spend is only ever recorded on an approved mandate, so no other state holds one.
 */
export const spendOutcomeStates: Guard[] = (['pending', 'denied', 'redeemed'] as const).map((state) => ({ field: 'state', op: 'ne', value: state }));

/**
 * The token guard of a redemption or a spend: the stored `token_hash` equal to the presented
 * token's hash, or, for a record bound to its token before hashes were kept (no `hash` given, see
 * `PresentedTokenGuard`), the stored `token_jti` equal to the verified token's `jti`.
 */
export const tokenGuard = (presented: { jti: string; hash?: string }): Guard => (presented.hash === undefined ? { field: 'token_jti', op: 'eq', value: presented.jti } : { field: 'token_hash', op: 'eq', value: presented.hash });
