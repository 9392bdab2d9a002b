import { connectivity } from '../net/connectivity.ts';
import { ApiError, type ApiErrorCode } from './api-error.ts';

/** What the server's error bodies look like (RFC 6749 §5.2). */
interface ErrorBody {
  error?: unknown;
  error_description?: unknown;
}

/**
 * Calls the device API with JSON and returns the parsed body.
 *
 * The session cookie goes along by itself (same origin). State changes are POST, PUT, PATCH or
 * DELETE, so the browser sends `Origin`, which the server checks against `PUBLIC_URL` to refuse cross-site calls.
 * The service worker never answers `/api/` (see `sw/precache.ts`): offline, the call fails, and
 * the app's connectivity turns `offline` so the app can say so.
 *
 * @throws {ApiError} with the server's `error` and `error_description`; `network_error` when the
 *   server was not reached; `invalid_response` for a body that is not JSON.
 * @throws the `AbortError` of `signal`, unchanged.
 */
export async function requestJson<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      body: body === undefined ? null : JSON.stringify(body),
      signal: signal ?? null,
    });
  } catch (cause) {
    if (signal?.aborted) throw cause;
    connectivity.reportUnreachable();
    throw new ApiError('network_error', "Can't reach Countersign. Check your connection and try again.", 0, { cause });
  }
  connectivity.reportReached();
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch (cause) {
    throw new ApiError(response.ok ? 'invalid_response' : fallbackCode(response.status), `The server answered ${response.status} with something that is not JSON.`, response.status, { cause });
  }
  if (!response.ok) {
    const { error: _code, error_description: _description, ...details } = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
    const error = (json ?? {}) as ErrorBody;
    // The server only sends codes from shared/src/errors/codes.ts; anything else is still shown.
    const code = typeof error.error === 'string' && /^[a-z_]+$/.test(error.error) ? (error.error as ApiErrorCode) : fallbackCode(response.status);
    const description = typeof error.error_description === 'string' && error.error_description !== '' ? error.error_description : `The server answered ${response.status}.`;
    throw new ApiError(code, description, response.status, { details });
  }
  return json as T;
}

function fallbackCode(status: number): ApiErrorCode {
  if (status === 401) return 'login_required';
  if (status === 404) return 'not_found';
  if (status === 429) return 'too_many_requests';
  if (status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request';
}
