import { CountersignError, type AuthorizationDetails } from '@countersign/shared';
import { DEFAULT_MANDATE_MAX_DURATION_SECONDS, type Policy } from '../policy/index.ts';
import { mandateOf } from '../requests/index.ts';

/**
 * How far in the past a new mandate's `starts_at` may lie, seconds: a day, so an agent may ask for
 * "from today 00:00 UTC", never for a standing permission that quietly covers weeks gone by.
 */
export const MANDATE_START_LEEWAY_SECONDS = 86_400;

function refuse(description: string): CountersignError {
  return new CountersignError('invalid_authorization_details', description);
}

/**
 * Checks a new mandate's dates against the injected clock, at `/bc-authorize`, before anything is
 * stored: `ends_at` is in the future, `starts_at` at most {@link MANDATE_START_LEEWAY_SECONDS} in
 * the past, and `ends_at − starts_at` at most the mandate type's `max_duration_seconds` in the
 * policy the request is rated under (else {@link DEFAULT_MANDATE_MAX_DURATION_SECONDS}). Requests
 * of other types pass untouched.
 *
 * @param nowMs - the injected clock, epoch ms.
 * @throws CountersignError `invalid_authorization_details` (400) naming the date and the bound.
 * @see RFC 9396 §5 (invalid_authorization_details); docs/mandates.md
 */
export function checkMandateDates(policy: Policy, details: AuthorizationDetails, nowMs: number): void {
  const mandate = mandateOf(details);
  if (!mandate) return;
  const starts = Date.parse(mandate.starts_at);
  const ends = Date.parse(mandate.ends_at);
  if (ends <= nowMs) throw refuse(`The mandate's ends_at (${mandate.ends_at}) must be in the future.`);
  if (starts < nowMs - MANDATE_START_LEEWAY_SECONDS * 1000) throw refuse(`The mandate's starts_at (${mandate.starts_at}) may be at most one day in the past.`);
  const max = policy.types.mandate?.max_duration_seconds ?? DEFAULT_MANDATE_MAX_DURATION_SECONDS;
  if ((ends - starts) / 1000 > max) throw refuse(`The mandate may run at most ${max} seconds (${Math.floor(max / 86_400)} days) from starts_at to ends_at.`);
}
