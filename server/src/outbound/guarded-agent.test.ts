import { request } from 'node:https';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenCounting, type CountingListener } from './counting-listener.test-support.ts';
import type { PushSubscriptionJSON } from '@countersign/shared';
import { createWebPushSender, loadVapidKeys } from '../push/index.ts';
import { MemoryStore } from '../store/index.ts';
import { createGuardedHttpsAgent } from './guarded-agent.ts';

describe('createGuardedHttpsAgent', () => {
  let listener: CountingListener;
  const toLoopback = async () => [{ address: '127.0.0.1', family: 4 as const }];

  beforeEach(async () => {
    // Any TCP connection counts, before TLS: a guard that let one through would show here.
    listener = await listenCounting();
  });
  afterEach(() => listener.close());

  it('opens no socket to a name that resolves to an internal address', async () => {
    const agent = createGuardedHttpsAgent({ resolve: toLoopback });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const outgoing = request({ host: 'fcm.googleapis.com', port: listener.port, path: '/fcm/send/a', method: 'POST', agent }, () => resolve(new Error('answered')));
      outgoing.on('error', resolve);
      outgoing.end();
    });
    agent.destroy();
    expect(error.code).toBe('ERR_ENDPOINT_FORBIDDEN');
    expect(listener.connections).toBe(0);
  });

  it('makes the web-push sender answer failed, ERR_ENDPOINT_FORBIDDEN, without a connection', async () => {
    const agent = createGuardedHttpsAgent({ resolve: toLoopback });
    const vapid = await loadVapidKeys({ store: new MemoryStore(), production: false });
    const sender = createWebPushSender({ vapid, agent, timeoutMs: 2000 });
    const subscription: PushSubscriptionJSON = { endpoint: `https://fcm.googleapis.com:${listener.port}/fcm/send/a`, keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' } };
    expect(await sender.send(subscription, '{}', { ttlSeconds: 60, urgency: 'high' })).toEqual({ status: 'failed', reason: 'ERR_ENDPOINT_FORBIDDEN' });
    agent.destroy();
    expect(listener.connections).toBe(0);
  });
});
