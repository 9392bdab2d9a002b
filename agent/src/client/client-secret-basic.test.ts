import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientSecretBasic, formUrlEncode } from './client-secret-basic.ts';
import { createAgentClient } from './create-agent-client.ts';

/** How a server reads client_secret_basic (RFC 6749 §2.3.1): base64, split at the first `:`, form-decode each half. */
function decodeBasic(header: string): { id: string; secret: string } {
  const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('latin1');
  const colon = decoded.indexOf(':');
  const formDecode = (s: string) => new URLSearchParams(`v=${s}`).get('v') ?? '';
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

describe('clientSecretBasic', () => {
  it('form-urlencodes the id and the secret before base64', () => {
    const expected = Buffer.from('agent%3A1:p%25ss+w%C3%B6rd%3A%E2%82%AC', 'utf8').toString('base64');
    expect(clientSecretBasic('agent:1', 'p%ss wörd:€')).toBe(`Basic ${expected}`);
  });

  it('leaves letters, digits and *-._ as they are', () => {
    expect(formUrlEncode('aZ09*-._')).toBe('aZ09*-._');
    expect(formUrlEncode("!~'()+/=")).toBe('%21%7E%27%28%29%2B%2F%3D');
  });
});

describe('the agent client on the wire', () => {
  let received: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ auth_req_id: 'req_1', expires_in: 300, interval: 5 }));
    });
  });
  let issuer = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['a colon', 'client:with:colons', 'secret:too'],
    ['a percent sign and a plus', 'client%20+1', '100%+sure'],
    ['non-ASCII characters', 'clïent-€', 'sécret 🔑 ünïcode'],
  ])('sends an id and secret holding %s so that a server decodes them exactly', async (_, clientId, clientSecret) => {
    received = [];
    const client = createAgentClient({ issuer, clientId, clientSecret });
    await client.requestApproval({ login_hint: 'alice', authorization_details: [] as never });
    const [request] = received;
    expect(request?.headers.authorization).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
    expect(decodeBasic(request?.headers.authorization ?? '')).toEqual({ id: clientId, secret: clientSecret });
  });

  it('posts bc-authorize form-encoded, with scope openid and authorization_details as a JSON string', async () => {
    received = [];
    const details = [{ type: 'payment' as const, transaction_id: 'txn_1', amount_minor: 1, currency: 'EUR', payee: { id: 'acct_1', name: 'Zoë & Co' }, purpose: 'a+b=c' }];
    const client = createAgentClient({ issuer, clientId: 'c', clientSecret: 's' });
    const answer = await client.requestApproval({ login_hint: 'alice', authorization_details: details, binding_message: 'Code 42' });
    expect(answer).toEqual({ auth_req_id: 'req_1', expires_in: 300, interval: 5 });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/bc-authorize');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(request?.body);
    expect(form.get('scope')).toBe('openid');
    expect(form.get('login_hint')).toBe('alice');
    expect(form.get('binding_message')).toBe('Code 42');
    expect(JSON.parse(form.get('authorization_details') ?? '')).toEqual(details);
    expect(form.has('requested_expiry')).toBe(false);
  });
});
