import { createApp, createDeps, loadConfig, MemoryStore, silentLogger } from '@countersign/server';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, honoSecureHeaders, OWN_HEADERS, send, TRANSPORT_HEADERS } from './support.ts';

/** The app over http and https, on a socket and through `app.request()`: exactly the security headers of every kind of answer, and capped body reading. */

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
