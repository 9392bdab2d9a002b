import { answerClientErrors, createApp, createDeps, loadConfig, MemoryStore, nodeServerOptions, silentLogger } from '@countersign/server';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The app as `pnpm start` serves it, on @hono/node-server over a real socket, and through
 * `app.request()` as the other tests drive it: the security headers of every kind of answer, and
 * the capped reading of request bodies.
 */

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** What hono's `secureHeaders` gave every answer, configured as the app configured it until it set them before `next()`. */
async function honoSecureHeaders(https: boolean): Promise<Record<string, string>> {
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
const OWN_HEADERS = ['x-request-id', 'content-type', 'content-length', 'cache-control', 'www-authenticate', 'last-modified', 'accept-ranges', 'service-worker-allowed', 'set-cookie', 'vary', 'content-encoding'];
/** What Node's HTTP server adds on its own. */
const TRANSPORT_HEADERS = ['date', 'connection', 'keep-alive', 'transfer-encoding'];

interface Served {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request over a socket with `node:http` (no fetch: it may not send a body without a length or a huge Content-Length). */
function send(port: number, method: string, path: string, options: { headers?: Record<string, string>; body?: string; chunks?: string[] } = {}): Promise<Served> {
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

describe.each([
  ['http', 'http://localhost:8080'],
  ['https', 'https://approve.example'],
])('the app over %s', (scheme, publicUrl) => {
  let server: ServerType;
  let port: number;
  let pwaRoot: string;
  let app: Hono;
  let expected: Record<string, string>;
  const basic = { authorization: `Bearer ${ADMIN_TOKEN}` };

  beforeAll(async () => {
    pwaRoot = mkdtempSync(join(tmpdir(), 'countersign-pwa-'));
    writeFileSync(join(pwaRoot, 'index.html'), '<!doctype html><title>Countersign</title>');
    writeFileSync(join(pwaRoot, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    const deps = await createDeps(loadConfig({ PUBLIC_URL: publicUrl, NODE_ENV: 'test' }), new MemoryStore(), { log: silentLogger });
    app = createApp(deps, { adminToken: ADMIN_TOKEN, pwaRoot });
    expected = await honoSecureHeaders(scheme === 'https');
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(pwaRoot, { recursive: true, force: true });
  });

  /** The answers to pin: a JSON endpoint, static PWA files, and errors of each origin. */
  const cases: { name: string; method: string; path: string; headers?: Record<string, string>; body?: string; status: number | number[] }[] = [
    { name: 'a JSON endpoint', method: 'GET', path: '/healthz', status: 200 },
    { name: 'discovery', method: 'GET', path: '/.well-known/openid-configuration', status: 200 },
    { name: 'the PWA at /', method: 'GET', path: '/', status: 200 },
    { name: 'the service worker', method: 'GET', path: '/sw.js', status: 200 },
    { name: 'an unknown path (404)', method: 'GET', path: '/no/such/file', status: 404 },
    { name: 'an unknown API path (404)', method: 'GET', path: '/api/nope', status: 404 },
    { name: 'a malformed request (400)', method: 'POST', path: '/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=%zz', status: 400 },
    { name: 'a wrong content type (415)', method: 'POST', path: '/token', headers: { 'content-type': 'text/plain' }, body: 'x', status: 415 },
    { name: "a middleware's own answer (401 from bearerAuth)", method: 'GET', path: '/api/admin/requests/req_x', status: 401 },
    { name: 'an admin answer', method: 'POST', path: '/api/admin/users', headers: { ...basic, 'content-type': 'application/json' }, body: JSON.stringify({ sub: 'alice' }), status: [200, 201] },
  ];

  it('gives exactly the headers hono secureHeaders gave, HSTS only over https', () => {
    expect(Object.keys(expected).length).toBe(scheme === 'https' ? 12 : 11);
    expect('strict-transport-security' in expected).toBe(scheme === 'https');
    expect(expected['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it.each(cases)('over a socket, $name carries exactly the security headers', async ({ method, path, headers, body, status }) => {
    const answer = await send(port, method, path, { ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
    expect([status].flat()).toContain(answer.status);
    const security = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !OWN_HEADERS.includes(name) && !TRANSPORT_HEADERS.includes(name)));
    expect(security).toEqual(expected);
  });

  it.each(cases)('through app.request, $name carries exactly the security headers', async ({ method, path, headers, body, status }) => {
    const answer = await app.request(`${publicUrl}${path}`, { method, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
    expect([status].flat()).toContain(answer.status);
    const security = Object.fromEntries([...answer.headers].filter(([name]) => !OWN_HEADERS.includes(name)));
    expect(security).toEqual(expected);
  });

  it('keeps the service worker uncached and its other headers', async () => {
    const answer = await send(port, 'GET', '/sw.js');
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.headers['service-worker-allowed']).toBe('/');
  });

  it('reads a form body from the socket', async () => {
    const answer = await send(port, 'POST', '/token', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=req_1&client_id=cli_nobody&client_secret=s' });
    expect([answer.status, JSON.parse(answer.body).error]).toEqual([401, 'invalid_client']);
  });

  it('reads a body sent in chunks without Content-Length', async () => {
    const answer = await send(port, 'POST', '/api/admin/clients', { headers: { ...basic, 'content-type': 'application/json' }, chunks: ['{"name":', '"Chunked agent"}'] });
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body).client_id).toMatch(/^cli_/);
  });

  it('takes an empty body as {} where every member has a default, and refuses a body over 64 KB sent in chunks there', async () => {
    await send(port, 'POST', '/api/admin/users', { headers: { ...basic, 'content-type': 'application/json' }, body: JSON.stringify({ sub: 'bob' }) });
    const answer = await send(port, 'POST', '/api/admin/users/bob/enrollments', { headers: basic });
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body).enrollment_code).toEqual(expect.any(String));
    const big = await send(port, 'POST', '/api/admin/users/bob/enrollments', { headers: { ...basic, 'content-type': 'application/json' }, chunks: ['{"tenant":"', 'x'.repeat(40_000), 'x'.repeat(40_000), '"}'] });
    expect([big.status, JSON.parse(big.body).error]).toEqual([413, 'request_too_large']);
  });

  it.each([
    ['/token', 'application/x-www-form-urlencoded'],
    ['/redeem', 'application/json'],
    ['/api/device/requests/req_x/decision', 'application/json'],
    ['/api/admin/clients', 'application/json'],
  ])('refuses a body announced over 64 KB on %s with 413 before reading it', async (path, type) => {
    const answer = await send(port, 'POST', path, { headers: { ...basic, origin: publicUrl, 'content-type': type, 'content-length': String(70_000) }, body: '' }).catch((error: Error) => error);
    // The server answers at once; the socket may be closed under a client still announcing bytes.
    if (answer instanceof Error) return;
    expect([answer.status, JSON.parse(answer.body)]).toEqual([413, { error: 'request_too_large', error_description: 'The request body is too large.' }]);
    expect(Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name in expected))).toEqual(expected);
  });

  it.each([
    ['/token', 'application/x-www-form-urlencoded'],
    ['/redeem', 'application/json'],
    ['/api/admin/clients', 'application/json'],
  ])('stops reading a body streamed over 64 KB on %s and answers 413', async (path, type) => {
    const chunks = Array.from({ length: 12 }, () => 'x'.repeat(8192));
    const answer = await send(port, 'POST', path, { headers: { ...basic, 'content-type': type }, chunks });
    expect([answer.status, JSON.parse(answer.body).error]).toEqual([413, 'request_too_large']);
  });

  it('still answers on the same server after refusing a body', async () => {
    expect((await send(port, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('what Node refuses before the app runs', () => {
  let server: ServerType;
  let port: number;

  beforeAll(async () => {
    const deps = await createDeps(loadConfig({ PUBLIC_URL: 'http://localhost:8080', NODE_ENV: 'test' }), new MemoryStore(), { log: silentLogger });
    const app = createApp(deps, { adminToken: ADMIN_TOKEN, pwaRoot: false });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', serverOptions: nodeServerOptions({ requestTimeoutMs: 400, headersTimeoutMs: 300 }) }, () => resolve());
    });
    answerClientErrors(server as Server, { https: false });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Writes raw bytes, keeps the socket open, and reads until the server closes it. */
  function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = text.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      });
    });
  }

  it.each([
    ['Content-Length and Transfer-Encoding together', 'POST /token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a negative Content-Length', 'POST /token HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n'],
    ['two different Content-Lengths', 'POST /token HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    ['a bad chunk size', 'POST /token HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('answers %s with 400, an OAuth error body and the security headers', async (_name, bytes) => {
    const answer = await raw(bytes);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_request', error_description: 'The request is not valid HTTP/1.1.' });
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'content-security-policy': expect.stringContaining("default-src 'self'"), connection: 'close' });
  });

  it('cuts off a body that never arrives with 408 once the request timeout passes', async () => {
    const answer = await raw('POST /token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\na=b');
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_request', error_description: 'The request was not received in time.' });
    expect(answer.headers['x-frame-options']).toBe('DENY');
  });
});

describe('pnpm start, stopped from the terminal', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

  /**
   * Runs the start script's command after its build step, through `sh -c` in a process group of
   * its own as pnpm runs it, and signals the whole group once the server listens: what Ctrl-C in a
   * terminal does. A shell that waits for the server dies of the SIGINT itself, and pnpm then
   * reports `ELIFECYCLE ... exit code 130` however cleanly the server stopped.
   */
  function runUntilSignalled(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
    const command = script.replace(/^pnpm build && /, '');
    const child = spawn('sh', ['-c', command], {
      cwd: root,
      detached: true,
      env: { PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`, HOME: process.env.HOME, PORT: '0', NODE_ENV: 'development' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let signalled = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL');
        reject(new Error(`the server did not listen and stop in time\n${output}`));
      }, 40_000);
      const read = (chunk: string) => {
        output += chunk;
        if (!signalled && output.includes('countersign listening')) {
          signalled = true;
          process.kill(-child.pid!, signal);
        }
      };
      child.stdout.setEncoding('utf8').on('data', read);
      child.stderr.setEncoding('utf8').on('data', read);
      child.once('exit', (code, exitSignal) => {
        clearTimeout(timer);
        resolve({ code, signal: exitSignal, output });
      });
    });
  }

  it('keeps building first', () => {
    expect(script).toMatch(/^pnpm build && /);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops cleanly and exits 0 on %s to the whole process group',
    async (signal) => {
      const run = await runUntilSignalled(signal);
      expect([run.code, run.signal], run.output).toEqual([0, null]);
      expect(run.output).toContain('"msg":"countersign stopping"');
      expect(run.output).not.toContain('did not stop in time');
    },
    60_000,
  );
});
