import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { securityHeaderSet } from './security-headers.ts';

/** Options of {@link nodeServerOptions}. */
export interface TimeoutOptions {
  /**
   * Milliseconds a client has to send a whole request, headers and body (Node's `requestTimeout`,
   * 300 s by default). A body is at most 64 KB, so a client still sending after this is holding a
   * handler open, not uploading: it gets 408. Default 30 s.
   */
  requestTimeoutMs?: number;
  /** Milliseconds a client has to send the request headers (Node's `headersTimeout`). Default 20 s. */
  headersTimeoutMs?: number;
}

/**
 * The Node server options for `serve({ serverOptions })`: a request whose headers or body trickle
 * in is cut off with 408 after `headersTimeoutMs` / `requestTimeoutMs`, checked every quarter of
 * the request timeout (at most 5 s), instead of holding a handler and its buffered bytes for
 * Node's default five minutes, checked every 30 s.
 */
export function nodeServerOptions(options: TimeoutOptions = {}): ServerOptions {
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  return {
    requestTimeout,
    headersTimeout: Math.min(options.headersTimeoutMs ?? 20_000, requestTimeout),
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(requestTimeout / 4))),
  };
}

/** The answer for each kind of request Node's HTTP parser refuses before the app sees it. */
function refusalFor(error: NodeJS.ErrnoException): { status: number; reason: string; error: string; description: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', error: 'invalid_request', description: 'The request was not received in time.' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', error: 'invalid_request', description: 'The request headers are too large.' };
    default:
      return { status: 400, reason: 'Bad Request', error: 'invalid_request', description: 'The request is not valid HTTP/1.1.' };
  }
}

/**
 * Puts what Node's HTTP server refuses before the app runs under the same rules as the app's own
 * answers, on the server @hono/node-server's `serve()` returns. Malformed HTTP (a bad
 * `Content-Length`, both `Content-Length` and `Transfer-Encoding`, a bad chunk, no `Host`…) and a
 * request cut off by {@link nodeServerOptions}' timeouts would get a bare 400 or 408 with no body
 * and none of the security headers; here they get an OAuth error body, the security headers and
 * `Connection: close` (Node's `clientError` event). A socket that is gone or already answering is
 * destroyed without writing anything.
 *
 * @see RFC 9112 §6.3 (message body length), RFC 9110 §15.5.9 (408), RFC 6749 §5.2 (error body)
 */
export function answerClientErrors(server: Server, options: { https: boolean }): void {
  const headers = securityHeaderSet({ https: options.https })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing to answer on a connection that is gone, or that has started an answer already.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error);
    const body = JSON.stringify({ error: refusal.error, error_description: refusal.description });
    socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\n${headers}Content-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
