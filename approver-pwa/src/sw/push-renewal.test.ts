import { describe, expect, it } from 'vitest';
import { base64UrlToBytes, renewSubscription, type RenewalDeps } from './push-renewal.ts';

const SERVER_KEY = 'BAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0-P0A';
const subscriptionJson = { endpoint: 'https://push.example.net/send/new', expirationTime: null, keys: { p256dh: 'p', auth: 'a' } };

/** A fake server and push manager that record what the worker did. */
function fakes(options: { me?: number; put?: number } = {}) {
  const calls: Array<{ path: string; method: string; body?: unknown; credentials?: RequestCredentials }> = [];
  const subscribed: Uint8Array[] = [];
  const deps: RenewalDeps = {
    fetch: async (input, init) => {
      const path = String(input);
      calls.push({ path, method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined, credentials: init?.credentials });
      if (path === '/api/device/me') {
        const status = options.me ?? 200;
        return new Response(status === 200 ? JSON.stringify({ vapid_public_key: SERVER_KEY }) : '{}', { status });
      }
      return new Response(null, { status: options.put ?? 204 });
    },
    pushManager: {
      subscribe: async (init) => {
        subscribed.push(new Uint8Array(init!.applicationServerKey as ArrayBuffer));
        return { toJSON: () => subscriptionJson } as unknown as PushSubscription;
      },
    },
  };
  return { deps, calls, subscribed };
}

describe('renewSubscription', () => {
  it('sends the subscription the event brings, with the session cookie', async () => {
    const { deps, calls, subscribed } = fakes();
    const result = await renewSubscription({ newSubscription: { toJSON: () => subscriptionJson } }, deps);
    expect(result).toEqual({ status: 'renewed', endpoint: subscriptionJson.endpoint });
    expect(subscribed).toEqual([]);
    expect(calls).toEqual([{ path: '/api/device/push-subscription', method: 'PUT', body: subscriptionJson, credentials: 'same-origin' }]);
  });

  it("subscribes again with the server's current key when the event brings none", async () => {
    const { deps, calls, subscribed } = fakes();
    const old = { options: { applicationServerKey: new Uint8Array([9, 9, 9]).buffer, userVisibleOnly: true } };
    expect(await renewSubscription({ oldSubscription: old, newSubscription: null }, deps)).toEqual({ status: 'renewed', endpoint: subscriptionJson.endpoint });
    expect(subscribed).toEqual([base64UrlToBytes(SERVER_KEY)]);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['GET /api/device/me', 'PUT /api/device/push-subscription']);
  });

  it("falls back to the old subscription's key when the server cannot say", async () => {
    const { deps, subscribed } = fakes({ me: 503 });
    const old = { options: { applicationServerKey: new Uint8Array([4, 1, 2]).buffer, userVisibleOnly: true } };
    await renewSubscription({ oldSubscription: old }, deps);
    expect(subscribed).toEqual([new Uint8Array([4, 1, 2])]);
  });

  it('does nothing for a browser that is not enrolled', async () => {
    const { deps, calls } = fakes({ me: 401 });
    expect(await renewSubscription({}, deps)).toEqual({ status: 'not_enrolled' });
    expect(calls).toHaveLength(1);
  });

  it('reports a refused PUT without throwing', async () => {
    const { deps } = fakes({ put: 403 });
    expect(await renewSubscription({ newSubscription: { toJSON: () => subscriptionJson } }, deps)).toEqual({ status: 'failed', reason: 'http_403' });
  });
});
