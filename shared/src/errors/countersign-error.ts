import { ERROR_CODES, type ErrorCode } from './codes.ts';

/** Options for {@link CountersignError}. */
export interface CountersignErrorOptions {
  /** HTTP status; defaults to the code's status in {@link ERROR_CODES}. */
  status?: number;
  /** Extra members of the JSON error body (for example `redemption` on `already_redeemed`). */
  body?: Record<string, unknown>;
  /** Extra response headers (for example `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** The underlying error; never sent to the caller. */
  cause?: unknown;
}

/**
 * The one error class of Countersign. Carries a stable OAuth-style `code`, an HTTP `status`, and
 * whether its description may be shown to the caller (`expose`, true below 500), in the manner
 * of node-oidc-provider's errors. One handler turns it into `{error, error_description}`.
 *
 * Only a server error (5xx) captures a stack trace; a refusal (4xx) has a `stack` of its first
 * line alone.
 */
export class CountersignError extends Error {
  override readonly name = 'CountersignError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, description: string, options: CountersignErrorOptions = {}) {
    const status = options.status ?? ERROR_CODES[code];
    // A refusal (4xx) is an expected answer, thrown on hot paths (`authorization_pending` on every
    // poll): capturing its stack cost about 3 % of a poll, and nobody reads it. A 5xx keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.code = code;
    this.status = status;
    this.expose = status < 500;
    this.body = options.body;
    this.headers = options.headers;
  }

  /** The OAuth 2.0 error body (RFC 6749 §5.2) plus any extra members. */
  toJSON(): Record<string, unknown> {
    return {
      error: this.code,
      error_description: this.expose ? this.message : 'The server could not complete the request.',
      ...(this.expose ? this.body : undefined),
    };
  }
}
