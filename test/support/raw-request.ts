import type { Harness } from './harness.ts';

/** One raw HTTP request: the exact bytes of the body and every header, nothing added. */
export interface Raw {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send these bytes instead of `body`'s UTF-8. */
  bytes?: Uint8Array<ArrayBuffer>;
  /** Stream the body in chunks with no `Content-Length`, as a chunked upload would arrive. */
  stream?: boolean;
}

/** An answer: its status, its text, the text parsed as JSON (null when it is not JSON) and its headers. */
export interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

/** Client credentials. */
export interface Credentials {
  client_id: string;
  client_secret: string;
}

/** `Authorization: Basic` as RFC 6749 §2.3.1 and openid-client build it. */
export function basic(credentials: Credentials): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(credentials.client_id)}:${encode(credentials.client_secret)}`).toString('base64')}`;
}

/** RFC 6749 §5.2: `error_description` is printable ASCII without `"` and `\`. */
export const OAUTH_DESCRIPTION = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,300}$/;
/** What a stack trace or an internal detail looks like in a response. */
export const LEAK = /\bat [\w.<>]+ \(|\/work\/|node_modules|\.ts:\d|\.js:\d|ZodError|TypeError|SyntaxError|ReplyError|WRONGTYPE|stack/i;

/** Sends `raw` to the harness's app (`app.request`, no socket) exactly as given. */
export async function send(h: Pick<Harness, 'app' | 'issuer'>, raw: Raw): Promise<Answer> {
  // Bytes, not a string: a string body would get a `text/plain` content type added on the way.
  const bytes = raw.bytes ?? (raw.body === undefined ? undefined : new TextEncoder().encode(raw.body));
  const init: RequestInit & { duplex?: 'half' } = { method: raw.method, headers: raw.headers ?? {} };
  if (bytes && raw.stream) {
    init.body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 8192) controller.enqueue(bytes.slice(at, at + 8192));
        controller.close();
      },
    });
    init.duplex = 'half';
  } else if (bytes) {
    init.body = bytes;
  }
  const response = await h.app.request(`${h.issuer}${raw.path}`, init);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the caller asserts what it expects */
  }
  return { status: response.status, text, body, headers: response.headers };
}
