import type { PushSender } from '@countersign/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, bcAuthorize, device, pollToken } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { basic } from './support/raw-request.ts';

/**
 * `GET /metrics` (docs/operations.md "Metrics"): after one whole flow on Redis (a
 * request pushed to the phone, approved with the passkey, its token polled, a redemption refused
 * for another amount, then the exact one redeemed), the scrape holds the counters of exactly that
 * flow, by route pattern and reason code, and never an id.
 */
describe('metrics (redis store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };
  const pushSender: PushSender = { send: async () => ({ status: 'sent', statusCode: 201 }) };

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis', pushSender });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund bot');
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(harness, customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
  });
  afterEach(() => harness.close());

  /** The scrape as text, and one sample's value by its name and exact labels (undefined when absent). */
  async function scrape() {
    const answer = await harness.call('GET', '/metrics', { headers: { authorization: `Bearer ${harness.adminToken}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = String(answer.body);
    const value = (name: string, labels: Record<string, string> = {}) => {
      const wanted = Object.entries(labels)
        .map(([key, v]) => `${key}="${v}"`)
        .sort()
        .join(',');
      for (const line of text.split('\n')) {
        const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const have = (match[2] ?? '')
          .split(/,(?=[a-z_]+=")/)
          .filter(Boolean)
          .sort()
          .join(',');
        if (have === wanted) return Number(match[3]);
      }
      return undefined;
    };
    return { text, value };
  }

  it('counts the flow: requests by route and status, gate events by reason, the push, the two latencies, the queue', async () => {
    const details = payment({ amount_minor: 1500 });
    const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details });
    expect(asked.status).toBe(200);
    const id = asked.body.auth_req_id as string;
    await harness.drain();
    expect((await answer(harness, customer, id, asked.body.binding_code === undefined ? { decision: 'approve' } : { decision: 'approve', code: asked.body.binding_code })).status).toBe(200);
    const polled = await pollToken(harness, client, id);
    expect(polled.status).toBe(200);
    const redeem = (amount: number) => harness.call('POST', '/redeem', { body: { token: polled.body.access_token, authorization_details: payment({ amount_minor: amount }) }, headers: { authorization: basic(client) } });
    expect((await redeem(1501)).body.error).toBe('approval_mismatch');
    expect((await redeem(1500)).status).toBe(200);
    await harness.drain();

    const { text, value } = await scrape();
    expect(value('countersign_http_requests_total', { method: 'POST', route: '/bc-authorize', status: '200' })).toBe(1);
    expect(value('countersign_http_requests_total', { method: 'POST', route: '/redeem', status: '200' })).toBe(1);
    expect(value('countersign_http_requests_total', { method: 'POST', route: '/redeem', status: '400' })).toBe(1);
    expect(value('countersign_http_requests_total', { method: 'POST', route: '/api/device/requests/:auth_req_id/decision', status: '200' })).toBe(1);
    expect(value('countersign_http_request_duration_seconds_count', { method: 'POST', route: '/bc-authorize', status: '200' })).toBe(1);
    expect(value('countersign_gate_events_total', { type: 'proposed', reason: '', channel: 'agent' })).toBe(1);
    expect(value('countersign_gate_events_total', { type: 'approved', reason: '', channel: 'device' })).toBe(1);
    expect(value('countersign_gate_events_total', { type: 'refused', reason: 'approval_mismatch', channel: 'agent' })).toBe(1);
    expect(value('countersign_gate_events_total', { type: 'redeemed', reason: '', channel: 'agent' })).toBe(1);
    expect(value('countersign_push_sends_total', { outcome: 'sent', service: 'push.example.test' })).toBe(1);
    expect(value('countersign_request_to_push_seconds_count')).toBe(1);
    expect(value('countersign_approval_to_token_seconds_count')).toBe(1);
    expect(value('countersign_job_queue_depth')).toBe(0);
    expect(value('countersign_store_errors_total', { kind: 'timeout' })).toBeUndefined();
    expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
    // Route patterns and codes only: no request, user, client or token in any label.
    for (const secret of [id, customer.sub, client.client_id, polled.body.access_token as string]) expect(text).not.toContain(secret);
  });

  it('is behind the admin token', async () => {
    expect((await harness.call('GET', '/metrics')).status).toBe(401);
    expect((await harness.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });
});
