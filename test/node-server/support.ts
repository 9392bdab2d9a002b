import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { request as httpRequest } from 'node:http';

/**
 * The app as `pnpm start` serves it, on @hono/node-server over a real socket, and through
 * `app.request()` as the other tests drive it: the security headers of every kind of answer, and
 * the capped reading of request bodies. What test/node-server/ shares: the admin token, the headers
 * hono's own `secureHeaders` gave, and one request over a socket.
 */

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** What hono's `secureHeaders` gave every answer, configured as the app configured it until it set them before `next()`. */
export async function honoSecureHeaders(https: boolean): Promise<Record<string, string>> {
  const probe = new Hono();
  probe.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'"],
        manifestSrc: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
      crossOriginEmbedderPolicy: false,
      xFrameOptions: 'DENY',
      strictTransportSecurity: https ? 'max-age=63072000; includeSubDomains' : false,
    }),
  );
  probe.get('/', (c) => c.body(null, 204));
  return Object.fromEntries((await probe.request('/')).headers);
}

/** The header names every answer of the app carries besides its security headers, by kind of answer (`x-request-id`: every one, see http/request-log.ts). */
export const OWN_HEADERS = ['x-request-id', 'content-type', 'content-length', 'cache-control', 'www-authenticate', 'last-modified', 'accept-ranges', 'service-worker-allowed', 'set-cookie', 'vary', 'content-encoding'];
/** What Node's HTTP server adds on its own. */
export const TRANSPORT_HEADERS = ['date', 'connection', 'keep-alive', 'transfer-encoding'];

/** An answer as read off the socket. */
export interface Served {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request over a socket with `node:http` (no fetch: it may not send a body without a length or a huge Content-Length). */
export function send(port: number, method: string, path: string, options: { headers?: Record<string, string>; body?: string; chunks?: string[] } = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: options.headers ?? {}, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), body }));
    });
    // The server may answer (413) and stop reading before the whole body is sent.
    req.on('error', reject);
    if (options.chunks) for (const chunk of options.chunks) req.write(chunk);
    req.end(options.body);
  });
}
