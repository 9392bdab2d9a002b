import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { isoTimes, isoTimesInAnswers } from './iso-times.ts';

const T = Date.parse('2026-12-04T01:20:37.123Z');

describe('isoTimes', () => {
  it('writes the numbers of `at` and `…_at` members, at any depth, as RFC 3339 UTC', () => {
    expect(isoTimes({ created_at: T, request: { expires_at: T + 60_000, approvals: [{ party: 'customer', at: T }], escalation: [{ at: T + 1000, party: 'role:ops' }] } })).toEqual({
      created_at: '2026-12-04T01:20:37.123Z',
      request: { expires_at: '2026-12-04T01:21:37.123Z', approvals: [{ party: 'customer', at: '2026-12-04T01:20:37.123Z' }], escalation: [{ at: '2026-12-04T01:20:38.123Z', party: 'role:ops' }] },
    });
  });

  it('leaves other numbers, strings, nulls and times already written alone', () => {
    const kept = { expires_in: 900, interval: 5, amount_minor: 49000, last_used_at: null, updated_at: '2026-12-04T01:20:37.123Z', seq: 3, format: 'at', chat: 7 };
    expect(isoTimes(kept)).toEqual(kept);
  });
});

describe('isoTimesInAnswers', () => {
  const app = new Hono();
  app.use('*', isoTimesInAnswers());
  app.get('/user', (c) => c.json({ sub: 'alice', created_at: T }, 201, { 'Cache-Control': 'no-store', ETag: '"3"' }));
  app.get('/text', (c) => c.text(String(T)));

  it('rewrites a JSON answer, keeping its status and headers', async () => {
    const response = await app.request('/user');
    expect([response.status, response.headers.get('content-type'), response.headers.get('cache-control'), response.headers.get('etag')]).toEqual([201, 'application/json', 'no-store', '"3"']);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ sub: 'alice', created_at: '2026-12-04T01:20:37.123Z' });
    expect(response.headers.get('content-length')).toBeNull();
  });

  it('passes an answer that is not JSON unchanged', async () => {
    expect(await (await app.request('/text')).text()).toBe(String(T));
  });
});
