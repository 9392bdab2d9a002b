import { createPinoLogger, type PushSender } from '@countersign/server';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bcAuthorize, device, pollToken } from './guarantees/policy-support.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { basic } from './support/raw-request.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

/**
 * Structured logs (docs/operations.md "Logs"): pino JSON lines, one per request with its
 * request id, route, status, duration and client; and no secret of a whole flow anywhere in them.
 * The flow runs on Redis with the server's real logger writing into this test.
 */
describe('logs (redis store)', () => {
  let harness: Harness;
  let lines: string[];

  beforeEach(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const pushSender: PushSender = { send: async () => ({ status: 'sent', statusCode: 201 }) };
    harness = await createHarness({ store: 'redis', pushSender, log: await createPinoLogger({ destination: sink, level: 'info' }) });
  });
  afterEach(() => harness.close());

  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it("logs one line per request with its id, route pattern, status, duration and client, and takes a proxy's request id", async () => {
    const client = await harness.createClient('Refund bot');
    const asked = await harness.call('POST', '/bc-authorize', { body: 'scope=openid&login_hint=nobody', headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'edge-7f3a' } });
    expect(asked.status).toBe(400);
    expect(asked.headers.get('x-request-id')).toBe('edge-7f3a');
    const own = await harness.call('GET', '/api/device/requests/cs_nope', { headers: { 'x-request-id': 'not ok; drop table' } });
    const generated = own.headers.get('x-request-id')!;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);

    const requests = parsed().filter((entry) => entry.msg === 'request');
    expect(requests.find((entry) => entry.request_id === 'edge-7f3a')).toEqual({ level: 30, time: expect.any(Number), msg: 'request', request_id: 'edge-7f3a', method: 'POST', route: '/bc-authorize', status: 400, duration_ms: expect.any(Number), client_id: client.client_id });
    expect(requests.find((entry) => entry.request_id === generated)).toMatchObject({ method: 'GET', route: '/api/device/requests/:auth_req_id', status: 401 });
    expect(requests.find((entry) => entry.request_id === generated)).not.toHaveProperty('client_id');
  });

  it('carries no secret of a whole flow: client secret, admin token, enrollment code, cookie, push keys, assertion, token, binding code', async () => {
    const issuer = harness.issuer;
    const client = await harness.createClient('Refund bot');
    await harness.admin('POST', '/users', { sub: 'alice', display_name: 'Alice' });
    const code = (await harness.admin('POST', '/users/alice/enrollments')).body.enrollment_code as string;
    const authenticator = createSoftAuthenticator({ origin: issuer, rpId: new URL(issuer).hostname });
    const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: issuer } });
    const registration = await authenticator.register(options.body);
    const verified = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: registration, device_name: 'Phone' }, headers: { origin: issuer } });
    const cookie = (verified.headers.get('set-cookie') ?? '').split(';')[0]!;
    const alice = { sub: 'alice', authenticator, cookie };
    const keys = { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' };
    expect((await device(harness, alice, 'PUT', '/push-subscription', { endpoint: 'https://push.example.test/send/secret-capability-path', keys })).status).toBe(204);

    const asked = await bcAuthorize(harness, client, { login_hint: 'alice', details: payment({ amount_minor: 1500 }) });
    await harness.drain();
    const view = await device(harness, alice, 'GET', `/requests/${asked.body.auth_req_id}`);
    const codeChoice = asked.body.binding_code as string | undefined;
    const prompt = codeChoice ? view.body.options.approve_by_code[codeChoice] : view.body.options.approve;
    const assertion = await authenticator.authenticate(prompt);
    const decided = await device(harness, alice, 'POST', `/requests/${asked.body.auth_req_id}/decision`, { decision: 'approve', response: assertion, ...(codeChoice ? { selected_code: codeChoice } : {}) });
    expect(decided.status).toBe(200);
    const polled = await pollToken(harness, client, asked.body.auth_req_id);
    const token = polled.body.access_token as string;
    expect((await harness.call('POST', '/redeem', { body: { token, authorization_details: payment({ amount_minor: 1500 }) }, headers: { authorization: basic(client) } })).status).toBe(200);
    // Wrong credentials, and a token presented where it does not belong, are logged as refusals only.
    await harness.call('POST', '/token', { body: `grant_type=urn:openid:params:grant-type:ciba&auth_req_id=${asked.body.auth_req_id}`, headers: { authorization: basic({ client_id: client.client_id, client_secret: `${client.client_secret}x` }), 'content-type': 'application/x-www-form-urlencoded' } });
    await harness.call('GET', '/api/admin/requests', { headers: { authorization: `Bearer ${harness.adminToken}x` } });
    await harness.drain();

    const log = lines.join('\n');
    expect(parsed().filter((entry) => entry.msg === 'request').length).toBeGreaterThan(10);
    const secrets = {
      client_secret: client.client_secret,
      admin_token: harness.adminToken,
      enrollment_code: code,
      cookie: cookie.split('=')[1]!,
      p256dh: keys.p256dh,
      push_auth: keys.auth,
      push_path: 'secret-capability-path',
      assertion_signature: assertion.response.signature,
      client_data: assertion.response.clientDataJSON,
      access_token: token,
      token_signature: token.split('.')[2]!,
      ...(codeChoice ? { binding_code_line: `"binding_code":"${codeChoice}"` } : {}),
    };
    for (const [name, secret] of Object.entries(secrets)) expect(log.includes(secret), `${name} is in the log`).toBe(false);
  });

  it('redacts a secret member a caller passes by mistake, at the top and one level down', async () => {
    const caught: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => void (caught.push(String(chunk)), done()) });
    const log = await createPinoLogger({ destination: sink });
    log.warn('oops', { token: 'tok-1', client: { client_secret: 'sec-2', id: 'c1' }, headers: { authorization: 'Bearer abc', accept: 'json' }, response: { signature: 'sig' } });
    expect(JSON.parse(caught.join(''))).toMatchObject({ msg: 'oops', token: '[redacted]', client: { client_secret: '[redacted]', id: 'c1' }, headers: { authorization: '[redacted]', accept: 'json' }, response: '[redacted]' });
  });
});
