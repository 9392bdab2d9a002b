/**
 * A small client of Countersign's admin API (`/api/admin`, `Authorization: Bearer <ADMIN_TOKEN>`)
 * for the operator's command-line tool. It returns the server's JSON unchanged; refusals become an
 * {@link AdminApiError} carrying the server's stable `error` code.
 */

/** A refusal from the admin API, or a server that could not be reached (`status` 0). */
export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  /** The server's `error` word (`invalid_token`, `not_found`…), or `network_error`, `invalid_response`. */
  readonly code: string;
  /** HTTP status; 0 when the server was not reached. */
  readonly status: number;

  constructor(code: string, message: string, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = status;
  }
}

/** Options of {@link createAdminApi}. */
export interface AdminApiOptions {
  /** The server's origin (`COUNTERSIGN_URL`), e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** `ADMIN_TOKEN`. */
  token: string;
  /** `fetch` (injected by tests). */
  fetch?: typeof fetch;
}

/** One admin API call's answer: status and parsed body. */
export interface AdminAnswer<T> {
  status: number;
  body: T;
}

/** The HTTP methods the admin API answers. */
export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The admin API as the CLI uses it. */
export interface AdminApi {
  /**
   * Calls `method path` with an optional JSON body.
   * @throws AdminApiError for any non-2xx answer and when the server cannot be reached.
   */
  call<T = unknown>(method: AdminMethod, path: string, body?: unknown): Promise<AdminAnswer<T>>;
}

/** Creates the admin API client. */
export function createAdminApi(options: AdminApiOptions): AdminApi {
  const fetcher = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    async call<T>(method: AdminMethod, path: string, body?: unknown): Promise<AdminAnswer<T>> {
      const url = `${base}/api/admin${path}`;
      let response: Response;
      try {
        response = await fetcher(url, {
          method,
          headers: { authorization: `Bearer ${options.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? null : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
      } catch (cause) {
        const reason = (cause as { cause?: { code?: unknown } } | null)?.cause?.code;
        throw new AdminApiError('network_error', `Can't reach Countersign at ${base}${typeof reason === 'string' ? ` (${reason})` : ''}.`, 0, { cause });
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = text === '' ? null : JSON.parse(text);
      } catch (cause) {
        throw new AdminApiError('invalid_response', `The server answered ${response.status} with something that is not JSON.`, response.status, { cause });
      }
      if (!response.ok) {
        const error = (json ?? {}) as { error?: unknown; error_description?: unknown };
        const code = typeof error.error === 'string' ? error.error : `http_${response.status}`;
        const description = typeof error.error_description === 'string' ? error.error_description : `The server answered ${response.status}.`;
        throw new AdminApiError(code, description, response.status);
      }
      return { status: response.status, body: json as T };
    },
  };
}
