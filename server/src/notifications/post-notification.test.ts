import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../jobs/index.ts';
import { ForbiddenEndpointError } from '../outbound/index.ts';
import { DEFAULT_RETRY_DELAYS_MS, postNotification, type NotificationFetch } from './post-notification.ts';

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

const named = (name: string) => Object.assign(new Error(name), { name });

describe('postNotification', () => {
  it('POSTs the JSON body with the bearer token, never following a redirect, and succeeds on 204', async () => {
    const { calls, fetch } = scripted([204]);
    const result = await postNotification('https://client.example/cb', 'tok', { auth_req_id: 'abc' }, { fetch, timeoutMs: 1000, production: false });
    expect(result).toEqual({ delivered: true, status: 204 });
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(url).toBe('https://client.example/cb');
    expect(init).toMatchObject({ method: 'POST', body: '{"auth_req_id":"abc"}', redirect: 'manual', headers: { 'content-type': 'application/json', authorization: 'Bearer tok' } });
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it.each([200, 202])('accepts %i as success and ignores the body', async (status) => {
    const { fetch } = scripted([status]);
    expect(await postNotification('https://c/cb', 't', {}, { fetch, timeoutMs: 1000, production: false })).toEqual({ delivered: true, status });
  });

  it.each([
    [500, { reason: 'endpoint_error', status: 500 }],
    [503, { reason: 'endpoint_error', status: 503 }],
    [408, { reason: 'endpoint_error', status: 408 }],
    [429, { reason: 'endpoint_error', status: 429 }],
    [named('TimeoutError'), { reason: 'endpoint_timeout' }],
    [named('AbortError'), { reason: 'endpoint_timeout' }],
    [new TypeError('fetch failed'), { reason: 'endpoint_unreachable' }],
  ] as const)('makes one attempt and calls %s worth retrying', async (step, failure) => {
    const { calls, fetch } = scripted([step]);
    expect(await postNotification('https://c/cb', 't', {}, { fetch, timeoutMs: 1000, production: false })).toEqual({ delivered: false, retryable: true, ...failure });
    expect(calls).toHaveLength(1);
  });

  it.each([
    [302, 'endpoint_redirect'],
    [307, 'endpoint_redirect'],
    [400, 'endpoint_error'],
    [401, 'endpoint_error'],
    [404, 'endpoint_error'],
  ] as const)('calls %i (%s) final: the next attempt would be refused the same way', async (status, reason) => {
    const { fetch } = scripted([status]);
    expect(await postNotification('https://c/cb', 't', {}, { fetch, timeoutMs: 1000, production: false })).toEqual({ delivered: false, reason, status, retryable: false });
  });
});

describe('postNotification and endpoints the server must not call', () => {
  it('in production, refuses an internal endpoint without calling the transport: endpoint_forbidden, final', async () => {
    const { calls, fetch } = scripted([204]);
    const result = await postNotification('https://169.254.169.254/latest/meta-data/', 'tok', {}, { fetch, timeoutMs: 1000, production: true });
    expect(result).toEqual({ delivered: false, reason: 'endpoint_forbidden', retryable: false, problem: 'its host 169.254.169.254 is a link-local address' });
    expect(calls).toEqual([]);
  });

  it("turns the transport's refusal of a resolved address, wrapped by fetch, into endpoint_forbidden, final", async () => {
    const refusal = new ForbiddenEndpointError('its host cb.acme-payments.com resolves to 127.0.0.1, a loopback address');
    const { fetch } = scripted([new TypeError('fetch failed', { cause: refusal })]);
    const result = await postNotification('https://cb.acme-payments.com/cb', 'tok', {}, { fetch, timeoutMs: 1000, production: true });
    expect(result).toEqual({ delivered: false, reason: 'endpoint_forbidden', retryable: false, problem: refusal.reason });
  });

  it('in development, still sends to a loopback receiver', async () => {
    const { calls, fetch } = scripted([204]);
    expect(await postNotification('http://127.0.0.1:9000/cb', 'tok', {}, { fetch, timeoutMs: 1000, production: false })).toEqual({ delivered: true, status: 204 });
    expect(calls).toHaveLength(1);
  });
});

describe('the retry schedule of client notifications', () => {
  it('waits 1, 2, 4, 8 s between 5 attempts, and none after the 5th', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, DEFAULT_RETRY_DELAYS_MS))).toEqual([1000, 2000, 4000, 8000, null]);
  });

  it('makes one attempt more than there are delays', () => {
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, [10, 20]))).toEqual([10, 20, null]);
  });
});
