/**
 * The server refused to connect to an endpoint: its URL, or an address its host resolved to, is
 * one the server must not reach (see `endpointProblem`, `forbiddenAddressReason`). Thrown by the
 * guarded transport instead of connecting; the notifier turns it into the delivery failure
 * `endpoint_forbidden`, never a retry and never a 5xx.
 */
export class ForbiddenEndpointError extends Error {
  override readonly name = 'ForbiddenEndpointError';
  /** Stable, for code that only sees the error through a `cause` chain. */
  readonly code = 'ERR_ENDPOINT_FORBIDDEN';

  /** @param reason Why, as a clause (`its host … is a loopback address`); names a host and an address, never a path or a token. */
  constructor(readonly reason: string) {
    super(`endpoint refused: ${reason}`);
  }
}

/**
 * The {@link ForbiddenEndpointError} behind `error`, or null. `fetch` wraps what its connector
 * throws (`TypeError: fetch failed`, with the lookup's error as `cause`), so the chain is walked.
 */
export function forbiddenEndpointCause(error: unknown): ForbiddenEndpointError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth += 1) {
    if (current instanceof ForbiddenEndpointError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
