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
 */
export class CountersignError extends Error {
  override readonly name = 'CountersignError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, description: string, options: CountersignErrorOptions = {}) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code];
    this.expose = this.status < 500;
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
