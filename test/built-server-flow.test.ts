import { describe, expect, it } from 'vitest';
import { payment } from './support/payment.ts';
import { ADMIN_TOKEN, deployedServer, enroll, redis, startBuilt } from './support/built-server.ts';

/** The deployed server passes the whole flow over HTTP, stops on SIGTERM with 0, and serves the console and PWA of its dist/. */
deployedServer();

describe('the built server, run with plain node', () => {
  it('passes the whole flow over HTTP, then stops on SIGTERM with exit code 0', async () => {
    const server = await startBuilt(`redis://127.0.0.1:${redis.port}/1`);
    const call = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const form = typeof init.body === 'string';
      const answer = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(init.body === undefined ? {} : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }), ...init.headers },
        ...(init.body === undefined ? {} : { body: form ? (init.body as string) : JSON.stringify(init.body) }),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : null, headers: answer.headers };
    };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const origin = { origin: server.url };

    const client = (await call('POST', '/api/admin/clients', { body: { name: 'Refund bot' }, headers: admin })).body;
    expect(client.client_secret).toEqual(expect.any(String));
    const basic = { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` };
    const { authenticator, cookie: session } = await enroll(server.url, 'alice');
    const cookie = { cookie: session, ...origin };

    const details = payment({ amount_minor: 1500 });
    const asked = await call('POST', '/bc-authorize', { body: new URLSearchParams({ scope: 'openid', login_hint: 'alice', binding_message: 'Order 1042', authorization_details: JSON.stringify(details) }).toString(), headers: basic });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const id = asked.body.auth_req_id as string;
    const view = await call('GET', `/api/device/requests/${id}`, { headers: cookie });
    const picked = asked.body.binding_code as string | undefined;
    const response = await authenticator.authenticate(picked ? view.body.options.approve_by_code[picked] : view.body.options.approve);
    expect((await call('POST', `/api/device/requests/${id}/decision`, { body: { decision: 'approve', response, ...(picked ? { selected_code: picked } : {}) }, headers: cookie })).status).toBe(200);
    const token = await call('POST', '/token', { body: `grant_type=urn:openid:params:grant-type:ciba&auth_req_id=${id}`, headers: basic });
    expect(token.status).toBe(200);
    const redeemed = await call('POST', '/redeem', { body: { token: token.body.access_token, authorization_details: details }, headers: basic });
    expect(redeemed.body).toMatchObject({ status: 'redeemed', redemption_id: expect.any(String) });
    expect((await call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status: 'succeeded', reference: 'pay_1' }, headers: basic })).status).toBe(200);
    expect((await call('GET', `/api/admin/requests/${id}`, { headers: admin })).body.request).toMatchObject({ state: 'redeemed' });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('countersign stopping');
  });

  it('serves the operator console and the approver PWA that its dist/ carries', async () => {
    const server = await startBuilt(`redis://127.0.0.1:${redis.port}/3`);
    try {
      const page = await fetch(`${server.url}/console`);
      expect([page.status, page.headers.get('content-type'), page.headers.get('cache-control')]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
      const html = await page.text();
      // vite's build: one hashed script and one hashed style sheet under /console/assets/.
      const script = /<script type="module" crossorigin src="(\/console\/assets\/[\w-]+\.js)"><\/script>/.exec(html)?.[1];
      const style = /<link rel="stylesheet" crossorigin href="(\/console\/assets\/[\w-]+\.css)">/.exec(html)?.[1];
      expect([script, style], html).toEqual([expect.any(String), expect.any(String)]);
      const js = await fetch(`${server.url}${script}`);
      expect([js.status, js.headers.get('content-type'), js.headers.get('cache-control')]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
      expect(await js.text()).toContain('countersign.console.admin-token');
      const css = await fetch(`${server.url}${style}`);
      expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
      const pwa = await fetch(`${server.url}/`);
      expect(pwa.status).toBe(200);
      expect(await pwa.text()).toContain('<title>Countersign</title>');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });
});
