import { answerClientErrors, createApp, createDeps, loadConfig, MemoryStore, nodeServerOptions, silentLogger } from '@countersign/server';
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from './support.ts';

/** What Node's HTTP server refuses before the app runs: malformed HTTP/1.1 with 400 and an OAuth body, a body that never arrives with 408. */

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
