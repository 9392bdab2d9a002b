import type { ErrorCode } from '@countersign/shared';

/** A server error code, or one of the two failures that happen before the server answers. */
export type ApiErrorCode = ErrorCode | 'network_error' | 'invalid_response';

/**
 * A refused or failed device API call. `code` is the server's stable `error` word (switch on it);
 * `message` is its `error_description`, written to be shown to the person.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  /** HTTP status; 0 when the server was not reached. */
  readonly status: number;
  /** Extra members of the error body beside `error` and `error_description`, if any. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ApiErrorCode, description: string, status: number, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(description, options);
    this.code = code;
    this.status = status;
    this.details = options?.details ?? {};
  }
}

/** True for an {@link ApiError}, optionally one with the given code. */
export function isApiError(error: unknown, code?: ApiErrorCode): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
