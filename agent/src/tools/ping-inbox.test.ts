import { describe, expect, it } from 'vitest';
import { createPingInbox } from './ping-inbox.ts';

const TOKEN = 'cnt_test_token_0123456789';

function ping(auth_req_id: unknown, authorization = `Bearer ${TOKEN}`, method = 'POST') {
  return new Request('http://agent.example/cb', {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify({ auth_req_id }) } : {}),
  });
}

describe('createPingInbox', () => {
  it('wakes the waiter of the pinged request only', async () => {
    const inbox = createPingInbox({ client_notification_token: TOKEN });
    const woken: string[] = [];
    const a = inbox.waitForPing('req_a').then(() => woken.push('req_a'));
    void inbox.waitForPing('req_b').then(() => woken.push('req_b'));
    expect((await inbox.handle(ping('req_a'))).status).toBe(204);
    await a;
    expect(woken).toEqual(['req_a']);
  });

  it('keeps a ping that came before anybody waited', async () => {
    const inbox = createPingInbox({ client_notification_token: TOKEN });
    await inbox.handle(ping('req_early'));
    await expect(inbox.waitForPing('req_early')).resolves.toBeUndefined();
  });

  it('forgets the oldest unclaimed pings past maxUnclaimed', async () => {
    const inbox = createPingInbox({ client_notification_token: TOKEN, maxUnclaimed: 2 });
    for (const id of ['req_1', 'req_2', 'req_3']) await inbox.handle(ping(id));
    const controller = new AbortController();
    const first = inbox.waitForPing('req_1', { signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(first).rejects.toThrow('gave up');
    await expect(inbox.waitForPing('req_3')).resolves.toBeUndefined();
  });

  it('refuses a ping without the bearer, with a wrong one, another method and a malformed body', async () => {
    const inbox = createPingInbox({ client_notification_token: TOKEN });
    expect((await inbox.handle(ping('req_1', ''))).status).toBe(401);
    expect((await inbox.handle(ping('req_1', `Bearer ${TOKEN}x`))).status).toBe(401);
    expect((await inbox.handle(ping('req_1', `Basic ${TOKEN}`))).status).toBe(401);
    expect((await inbox.handle(ping('req_1', `Bearer ${TOKEN}`, 'GET'))).status).toBe(405);
    expect((await inbox.handle(ping(42))).status).toBe(400);
    // None of them counted as a ping.
    const controller = new AbortController();
    const waiting = inbox.waitForPing('req_1', { signal: controller.signal });
    controller.abort(new Error('no ping'));
    await expect(waiting).rejects.toThrow('no ping');
  });

  it('makes up a 256-bit token when none is given', () => {
    const a = createPingInbox().client_notification_token;
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createPingInbox().client_notification_token).not.toBe(a);
  });
});
