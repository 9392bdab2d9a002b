import { ERROR_CODES, type ErrorCode } from '@countersign/shared';
import { z } from 'zod';

/**
 * One refusal a path documents: an error code at its default status ({@link ERROR_CODES}), or
 * `[code, status]` where the path answers it with another (`/redeem`'s 403 `unauthorized_client`,
 * a 415 `invalid_request`).
 */
export type ErrorSpec = ErrorCode | readonly [ErrorCode, number];

/**
 * The OAuth error body (RFC 6749 §5.2, CIBA Core §13) limited to `codes`. Loose: a refusal may
 * carry more members (`already_redeemed`'s `redemption`, `stale_record`'s `records`,
 * `invalid_policy`'s `problems`), which docs/design.md lets grow (fields may be added to a fixed
 * shape).
 */
export function oauthError(codes: readonly [ErrorCode, ...ErrorCode[]]) {
  return z.looseObject({
    error: z.enum(codes),
    error_description: z.string(),
  });
}

/** `specs` grouped by the status each answers with: status → codes, each once, in the order given. */
export function errorsByStatus(specs: readonly ErrorSpec[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const spec of specs) {
    const [code, status] = typeof spec === 'string' ? [spec, ERROR_CODES[spec]] : spec;
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  return byStatus;
}

/** What any endpoint may answer (docs/design.md "HTTP surface" conventions). */
export const COMMON_ERRORS: readonly ErrorSpec[] = ['invalid_request', 'temporarily_unavailable'];
/** What any endpoint that reads a body may answer besides: too large, wrong content type. */
export const BODY_ERRORS: readonly ErrorSpec[] = ['request_too_large', ['invalid_request', 415]];
/** Agent and executor endpoints: client authentication and the per-client rate limit. */
export const CLIENT_ERRORS: readonly ErrorSpec[] = ['invalid_client', 'too_many_requests'];
/** Device endpoints behind the session; calls that change state also check `Origin`. */
export const SESSION_ERRORS: readonly ErrorSpec[] = ['login_required', 'too_many_requests'];
/** Admin endpoints: the bearer token and the wrong-token limit per address. */
export const ADMIN_ERRORS: readonly ErrorSpec[] = ['invalid_token', 'too_many_requests'];
