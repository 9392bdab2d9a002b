// The console's one way to the admin API: same origin, the admin token as a Bearer token, JSON
// both ways. The token lives in this tab's sessionStorage only.
import type { ErrorBody } from './admin-types.ts';

const TOKEN_KEY = 'countersign.console.admin-token';

/** A refusal of the admin API, with its stable `error` code (`network_error` when the server is unreachable, `http_<status>` without a body). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
  ) {
    super(message);
  }
}

let token: string | null = sessionStorage.getItem(TOKEN_KEY);

/** The admin token in use, or null when signed out. */
export function currentToken(): string | null {
  return token;
}

/** Uses `candidate` for the calls that follow; `keep` also stores it in the tab's sessionStorage. */
export function useToken(candidate: string | null, keep = false): void {
  token = candidate;
  if (candidate === null) sessionStorage.removeItem(TOKEN_KEY);
  else if (keep) sessionStorage.setItem(TOKEN_KEY, candidate);
}

/** The admin API's methods the console calls. */
export type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Calls `/api/admin{path}` and answers its JSON as `T` (the caller names the shape of that route,
 * see admin-types.ts).
 * @throws ApiError on a refusal (its `error` and `error_description`) or when the server is unreachable.
 */
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/admin${path}`, {
      method,
      cache: 'no-store',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('network_error', "Can't reach the server.", 0);
  }
  const json: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const refusal = (json ?? {}) as ErrorBody;
    throw new ApiError(refusal.error ?? `http_${response.status}`, refusal.error_description ?? `The server answered ${response.status}.`, response.status);
  }
  return json as T;
}

/** `code: message` of a refusal, as the console's error lines show it. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return `${error instanceof Error ? error.name : 'error'}: ${error instanceof Error ? error.message : String(error)}`;
}
