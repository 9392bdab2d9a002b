import { CountersignError } from '@countersign/shared';
import type { MiddlewareHandler } from 'hono';

/** The largest request body read, in bytes; a larger one is refused with 413 `request_too_large`. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The refusal of a body over the limit: 413 `request_too_large`. */
export function bodyTooLarge(): CountersignError {
  return new CountersignError('request_too_large', 'The request body is too large.');
}

/**
 * Middleware that refuses a body announced as larger than `maxBytes` (its `Content-Length`) with
 * 413 `request_too_large` before anything reads it, on every route, those that never read a body
 * included. A body sent without a length is capped as it is read (`readForm`, `readJson`). Unlike hono's `bodyLimit` it never touches the body itself, which under
 * @hono/node-server would build an undici `Request`, an `AbortSignal` and a web stream per request.
 *
 * @throws CountersignError `request_too_large` (413).
 */
export function contentLengthLimit(maxBytes: number = MAX_BODY_BYTES): MiddlewareHandler {
  return async function contentLengthLimit(c, next) {
    const length = c.req.header('content-length');
    // With Transfer-Encoding the length means nothing (RFC 9112 §6.3): the read caps it instead.
    if (length !== undefined && Number.parseInt(length, 10) > maxBytes && c.req.header('transfer-encoding') === undefined) throw bodyTooLarge();
    await next();
  };
}
