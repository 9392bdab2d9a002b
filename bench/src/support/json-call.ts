/** What a benchmark call sends: JSON (`body`) or a form (`form`), with extra headers. */
export interface CallInit {
  body?: unknown;
  form?: string;
  headers?: Record<string, string>;
}

/** An answer: its status, its body parsed as JSON when it is JSON (else the text), its headers. */
export interface CallAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * A `call(method, path, init)` on top of `send` (a `fetch` to a server, or hono's `app.request`):
 * encodes a JSON or form body with its content type, and parses the answer as JSON when it is.
 */
export function jsonCall(send: (path: string, init: RequestInit) => Promise<Response>): (method: string, path: string, init?: CallInit) => Promise<CallAnswer> {
  return async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = init.form;
    } else if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const response = await send(path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
}

/**
 * `work`, or an error saying `what` did not finish in `ms` milliseconds: a stuck step of the
 * benchmark fails naming itself instead of hanging the run.
 */
export function withDeadline<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
