import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, postNotification, type DeliveryOptions, type NotificationFetch } from './post-notification.ts';

type Step = number | Error;

/** A fetch that answers `steps` in order (a status, or a thrown error) and records each call. */
function scripted(steps: Step[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: NotificationFetch = async (url, init) => {
    calls.push({ url, init });
    const step = steps.shift() ?? 204;
    if (step instanceof Error) throw step;
    return new Response(step === 204 || step === 304 ? null : 'ignored body', { status: step });
  };
  return { calls, fetch };
}

function options(fetch: NotificationFetch, sleeps: number[]): DeliveryOptions {
  return { fetch, sleep: async (ms) => void sleeps.push(ms), timeoutMs: 1000, retryDelaysMs: DEFAULT_RETRY_DELAYS_MS };
}

const named = (name: string) => Object.assign(new Error(name), { name });

describe('postNotification', () => {
  it('POSTs the JSON body with the bearer token, never following a redirect, and succeeds on 204', async () => {
    const { calls, fetch } = scripted([204]);
    const sleeps: number[] = [];
    const result = await postNotification('https://client.example/cb', 'tok', { auth_req_id: 'abc' }, options(fetch, sleeps));
    expect(result).toEqual({ delivered: true, attempts: 1, status: 204 });
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(url).toBe('https://client.example/cb');
    expect(init).toMatchObject({ method: 'POST', body: '{"auth_req_id":"abc"}', redirect: 'manual', headers: { 'content-type': 'application/json', authorization: 'Bearer tok' } });
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(sleeps).toEqual([]);
  });

  it.each([200, 202])('accepts %i as success and ignores the body', async (status) => {
    const { fetch } = scripted([status]);
    expect(await postNotification('https://c/cb', 't', {}, options(fetch, []))).toEqual({ delivered: true, attempts: 1, status });
  });

  it('retries 5xx, 408, 429, timeouts and network errors with 1, 2, 4, 8 s waits, then delivers', async () => {
    const { calls, fetch } = scripted([500, named('TimeoutError'), new TypeError('fetch failed'), 429, 204]);
    const sleeps: number[] = [];
    expect(await postNotification('https://c/cb', 't', {}, options(fetch, sleeps))).toEqual({ delivered: true, attempts: 5, status: 204 });
    expect(calls).toHaveLength(5);
    expect(sleeps).toEqual([1000, 2000, 4000, 8000]);
  });

  it('gives up after the last attempt and reports why the last one failed', async () => {
    const { fetch } = scripted([503, 503, 503, 503, named('TimeoutError')]);
    expect(await postNotification('https://c/cb', 't', {}, options(fetch, []))).toEqual({ delivered: false, attempts: 5, reason: 'endpoint_timeout' });
    const unreachable = scripted(Array(5).fill(new TypeError('fetch failed')));
    expect(await postNotification('https://c/cb', 't', {}, options(unreachable.fetch, []))).toEqual({ delivered: false, attempts: 5, reason: 'endpoint_unreachable' });
    const erroring = scripted(Array(5).fill(502));
    expect(await postNotification('https://c/cb', 't', {}, options(erroring.fetch, []))).toEqual({ delivered: false, attempts: 5, reason: 'endpoint_error', status: 502 });
  });

  it.each([
    [302, 'endpoint_redirect'],
    [307, 'endpoint_redirect'],
    [400, 'endpoint_error'],
    [401, 'endpoint_error'],
    [404, 'endpoint_error'],
  ] as const)('stops at once on %i (%s): the next attempt would be refused the same way', async (status, reason) => {
    const { calls, fetch } = scripted([status]);
    const sleeps: number[] = [];
    expect(await postNotification('https://c/cb', 't', {}, options(fetch, sleeps))).toEqual({ delivered: false, attempts: 1, reason, status });
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('makes one attempt more than there are delays', async () => {
    const { calls, fetch } = scripted([500, 500, 500]);
    const result = await postNotification('https://c/cb', 't', {}, { ...options(fetch, []), retryDelaysMs: [10, 20] });
    expect(result).toMatchObject({ delivered: false, attempts: 3 });
    expect(calls).toHaveLength(3);
  });
});
