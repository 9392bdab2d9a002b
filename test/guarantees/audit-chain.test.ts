import { canonicalize } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createAuditLog, type StoredAuditEvent } from '../../server/src/audit/index.ts';
import { runAuditCommand } from '../../server/src/cli/audit-command.ts';
import { OffsetClock } from '../../server/src/runtime/index.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { payment } from '../support/payment.ts';
import { testPrefix, testRedisStore } from '../support/redis.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';

/**
 * The audit trail (docs/design.md guarantee 9, docs/audit.md): every tenant's events form one hash
 * chain in a Redis Stream; the chain of a whole flow verifies, exports as JSON lines in order,
 * carries no secret or token, and shows an edited and a deleted event at the right link — and two
 * instances appending at once never fork it.
 */

const NOTIFICATION_TOKEN = 'cnt_audit_chain_fedcba9876543210';

/** Every secret and token one whole flow handles, by name. */
type Secrets = Record<string, string>;

/** A whole flow: two enrollments, a ping client, an approval, a denial, a refused redeem, a redemption and its outcome. */
async function wholeFlow(harness: Harness, receiver: NotificationReceiver): Promise<{ authReqId: string; secrets: Secrets }> {
  const customer = await harness.enrollUser('customer_1');
  // A second device, enrolled by hand to hold on to its enrollment code.
  const enrollment = await harness.admin('POST', '/users/customer_1/enrollments');
  const code = enrollment.body.enrollment_code as string;
  const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
  const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
  const registered = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options.body), device_name: 'Second phone' }, headers: { origin: harness.issuer } });
  expect(registered.status).toBe(200);

  const client = await harness.admin('POST', '/clients', { name: 'Refund agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
  const agent = createAgentClient({ issuer: harness.issuer, clientId: client.body.client_id, clientSecret: client.body.client_secret, fetch: harness.fetch });

  const denied = await agent.requestApproval({ login_hint: 'customer_1', authorization_details: payment({ transaction_id: 'txn_denied' }), client_notification_token: NOTIFICATION_TOKEN });
  expect((await harness.decide(customer, denied.auth_req_id, 'deny')).status).toBe(200);

  const asked = await agent.requestApproval({ login_hint: 'customer_1', authorization_details: payment(), binding_message: 'Order 1042', client_notification_token: NOTIFICATION_TOKEN });
  // The person opens the request once its push has reached them: the push (background work) goes first.
  await harness.drain();
  const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
  expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
  await harness.deps.background.drain();
  const polled = await agent.pollToken(asked.auth_req_id);
  if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.body.client_id)}:${encodeURIComponent(client.body.client_secret)}`).toString('base64')}`;
  const wrong = await harness.call('POST', '/redeem', { body: { token: polled.token.access_token, authorization_details: payment({ amount_minor: 49001 }) }, headers: { authorization: basic } });
  expect(wrong.body.error).toBe('approval_mismatch');
  const redemption = await agent.redeem(polled.token.access_token, payment());
  await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
  await harness.deps.background.drain();

  return {
    authReqId: asked.auth_req_id,
    secrets: {
      client_secret: client.body.client_secret,
      access_token: polled.token.access_token,
      id_token: polled.token.id_token,
      client_notification_token: NOTIFICATION_TOKEN,
      enrollment_code: code,
      admin_token: harness.adminToken,
      device_session: customer.cookie.split('=')[1]!,
      webauthn_challenge: view.body.options.approve.challenge,
    },
  };
}

async function exported(harness: Harness): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of harness.deps.audit.export('default')) lines.push(line);
  return lines;
}

describe.each(['memory', 'redis'] as const)('the audit chain of a whole flow (%s store)', (storeKind) => {
  let harness: Harness;
  let receiver: NotificationReceiver;
  let flow: Awaited<ReturnType<typeof wholeFlow>>;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    receiver = await startNotificationReceiver();
    flow = await wholeFlow(harness, receiver);
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  it('verifies, and exports as JSON lines in chain order, each linked to the one before', async () => {
    const lines = await exported(harness);
    const events = lines.map((line) => JSON.parse(line) as StoredAuditEvent);
    expect(events.length).toBeGreaterThan(15);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
    for (const line of lines) expect(line).toBe(canonicalize(JSON.parse(line)));
    expect(events.every((event) => event.tenant === 'default' && /^\d+-\d+$/.test(event.id))).toBe(true);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['device_enrolled', 'proposed', 'pushed', 'viewed', 'denied', 'approved', 'notified', 'token_issued', 'refused', 'redeemed', 'outcome']));

    const report = await harness.deps.audit.verify('default');
    expect(report).toEqual({ ok: true, tenant: 'default', events: events.length, head: { seq: events.length - 1, id: events.at(-1)!.id, hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });

    // The per-request view (GET /api/admin/audit) is the request's events, in chain order.
    const view = (await harness.admin('GET', `/audit?auth_req_id=${flow.authReqId}`)).body.events as StoredAuditEvent[];
    // The flow opens the request twice on one phone: one `viewed` (a view is audited once per device).
    expect(view.map((event) => event.type)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'notified', 'token_issued', 'refused', 'redeemed', 'outcome']);
    expect(view).toEqual(events.filter((event) => event.auth_req_id === flow.authReqId));
    expect(view.find((event) => event.type === 'approved')).toMatchObject({ client_id: expect.stringMatching(/^cli_/), sub: 'customer_1', credential_id: expect.any(String), channel: 'device', at: expect.any(String) });
    expect(view.find((event) => event.type === 'refused')).toMatchObject({ reason: 'approval_mismatch', channel: 'agent' });
  });

  it('holds no secret, token, client_notification_token or enrollment code in any event', async () => {
    const everything = [...(await exported(harness)), JSON.stringify((await harness.admin('GET', `/audit?auth_req_id=${flow.authReqId}`)).body)].join('\n');
    for (const [name, secret] of Object.entries(flow.secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(everything.includes(secret), `${name} appears in the audit trail`).toBe(false);
    }
    // Nothing JWT-shaped at all: not an approval token, an id_token or a client assertion.
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
  });
});

describe('tampering with the audit stream in Redis', () => {
  let harness: Harness;
  let receiver: NotificationReceiver;
  let redis: Redis;
  let streamKey: string;
  let events: StoredAuditEvent[];

  beforeAll(() => {
    redis = new Redis(inject('redisUrl'));
  });
  afterAll(async () => {
    await redis.quit();
  });

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    receiver = await startNotificationReceiver();
    const flow = await wholeFlow(harness, receiver);
    events = (await exported(harness)).map((line) => JSON.parse(line) as StoredAuditEvent);
    // The harness's store has a random prefix: find its stream by what it holds.
    const candidates: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', 'test:*:auditlog:{default}', 'COUNT', 1000);
      candidates.push(...found);
      cursor = next;
    } while (cursor !== '0');
    for (const candidate of candidates) {
      const entries = await redis.xrange(candidate, '-', '+');
      if (entries.some(([, fields]) => fields.some((value) => value.includes(flow.authReqId)))) streamKey = candidate;
    }
    expect(await redis.type(streamKey)).toBe('stream');
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  /** Rebuilds the stream with the same ids, each entry's flat fields passed through `change`; answers the entries before. */
  async function rewrite(change: (id: string, fields: string[]) => string[]): Promise<[string, string[]][]> {
    const entries = await redis.xrange(streamKey, '-', '+');
    const rebuild = redis.multi().del(streamKey);
    for (const [id, fields] of entries) rebuild.xadd(streamKey, id, ...change(id, fields));
    await rebuild.exec();
    return entries;
  }
  const withField = (fields: string[], name: string, value: string) => fields.map((item, i) => (i % 2 === 1 && fields[i - 1] === name ? value : item));

  it('stores each event in the compact form: no tenant, `at` in epoch ms, rebuilt exactly as exported', async () => {
    const entries = await redis.xrange(streamKey, '-', '+');
    expect(entries.every(([, fields]) => fields.filter((_, i) => i % 2 === 0).join() === 't,s,p,a,r,c,u,h,d,x')).toBe(true);
    expect(entries.some(([, fields]) => fields.includes('default'))).toBe(false);
    expect(entries.map(([id, fields]) => [id, fields[7]])).toEqual(events.map((event) => [event.id, String(Date.parse(event.at))]));
  });

  it('reads and verifies entries of the earlier form (one `event` field of JSON) beside compact ones, byte for byte', async () => {
    const before = await exported(harness);
    const report = await harness.deps.audit.verify('default');
    const half = Math.floor(events.length / 2);
    await rewrite((id, fields) => {
      const { id: _id, ...chained } = events.find((event) => event.id === id)!;
      return chained.seq < half ? ['event', canonicalize(chained)] : fields;
    });
    expect((await redis.xrange(streamKey, '-', '+', 'COUNT', 1))[0]![1][0]).toBe('event');
    expect(await exported(harness)).toEqual(before);
    expect(await harness.deps.audit.verify('default')).toEqual(report);
  });

  it('finds an entry whose rebuilt event differs (its stored time moved by 1 ms) at the next link', async () => {
    const target = events.find((event) => event.type === 'approved')!;
    await rewrite((id, fields) => (id === target.id ? withField(fields, 'a', String(Date.parse(target.at) + 1)) : fields));
    expect((await harness.deps.audit.verify('default')).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: target.seq + 1 });
  });

  it('finds an entry moved in from another tenant’s stream', async () => {
    await harness.deps.audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'acme', channel: 'agent' });
    const [, acme] = (await redis.xrange(streamKey.replace('{default}', '{acme}'), '-', '+'))[0]!;
    const target = events[3]!;
    // The other tenant's entry, given the seq of the one it replaces: only its hash link can tell.
    await rewrite((id, fields) => (id === target.id ? withField(acme, 's', String(target.seq)) : fields));
    expect((await harness.deps.audit.verify('default')).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 3 });
  });

  it('finds an event edited in place at the next link, and the verify command reports it', async () => {
    const target = events.find((event) => event.type === 'denied')!;
    // Streams cannot be edited in place: an attacker rebuilds the stream with the same ids, one event changed.
    const entries = await rewrite((id, fields) => (id === target.id ? withField(fields, 't', 'approved') : fields));
    expect((await redis.xrange(streamKey, '-', '+')).map(([id]) => id)).toEqual(entries.map(([id]) => id));

    const report = await harness.deps.audit.verify('default');
    expect(report.ok).toBe(false);
    expect(report.broken).toEqual({
      reason: 'prev_hash_mismatch',
      position: target.seq + 1,
      id: events[target.seq + 1]!.id,
      expected_seq: target.seq + 1,
      found_seq: target.seq + 1,
      message: `event ${target.seq} was changed: event ${target.seq + 1} holds another hash for it`,
    });

    const out: string[] = [];
    const code = await runAuditCommand(['verify', '--tenant', 'default'], {
      openAudit: async () => ({ audit: harness.deps.audit, close: async () => undefined }),
      readLines: () => [][Symbol.iterator]() as never,
      out: (line) => void out.push(line),
      err: () => undefined,
    });
    expect(code).toBe(1);
    expect(out).toEqual([`broken: tenant default, first broken link at position ${target.seq + 1} (stream id ${events[target.seq + 1]!.id}): prev_hash_mismatch: event ${target.seq} was changed: event ${target.seq + 1} holds another hash for it`]);
  });

  it('finds a deleted event at the gap it leaves', async () => {
    const target = events.find((event) => event.type === 'viewed')!;
    expect(await redis.xdel(streamKey, target.id)).toBe(1);
    const report = await harness.deps.audit.verify('default');
    expect(report.broken).toEqual({
      reason: 'seq_mismatch',
      position: target.seq,
      id: events[target.seq + 1]!.id,
      expected_seq: target.seq,
      found_seq: target.seq + 1,
      message: `event ${target.seq} is missing: found seq ${target.seq + 1} (deleted)`,
    });
  });

  it('finds the newest event deleted against a head recorded before', async () => {
    const { head } = await harness.deps.audit.verify('default');
    await redis.xdel(streamKey, events.at(-1)!.id);
    expect((await harness.deps.audit.verify('default')).ok).toBe(true);
    expect((await harness.deps.audit.verify('default', head!)).broken).toMatchObject({ reason: 'anchor_mismatch', position: events.length - 1 });
  });
});

describe('several instances appending to one tenant on Redis at once', () => {
  it('never fork the chain: four instances, 100 events, seq 0 to 99, one link each', async () => {
    const prefix = testPrefix();
    const stores = await Promise.all([1, 2, 3, 4].map(() => testRedisStore({ prefix })));
    try {
      const clock = new OffsetClock();
      const instances = stores.map((store) => createAuditLog(store, clock, 3600));
      await Promise.all(Array.from({ length: 100 }, (_, n) => instances[n % 4]!.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n } })));
      const report = await instances[0]!.verify('default');
      expect(report).toMatchObject({ ok: true, events: 100, head: { seq: 99 } });
      const lines: string[] = [];
      for await (const line of instances[1]!.export('default')) lines.push(line);
      const written = lines.map((line) => (JSON.parse(line) as StoredAuditEvent).detail!.n);
      expect([...written].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 100 }, (_, n) => n));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

describe('group commit: one instance appending many events to one tenant on Redis at once', () => {
  it('lands 200 concurrent records in a few script calls, in call order, and the chain verifies', async () => {
    const store = await testRedisStore();
    try {
      const calls: Record<string, number> = {};
      // Counts the store's calls by method, so the number of script calls (round trips) shows.
      const counted = new Proxy(store, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (typeof value !== 'function' || typeof name !== 'string') return value;
          return (...args: unknown[]) => {
            calls[name] = (calls[name] ?? 0) + 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const audit = createAuditLog(counted, new OffsetClock(), 3600);
      await Promise.all(Array.from({ length: 200 }, (_, n) => audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', auth_req_id: `req_${n % 8}`, channel: 'agent', detail: { n } })));
      expect(calls.streamAppendAfter ?? 0).toBe(0);
      expect(calls.streamAppendManyAfter).toBeGreaterThan(0);
      expect(calls.streamAppendManyAfter).toBeLessThanOrEqual(4);
      // Each event is stored once: the per-request views are indexed by the same script calls.
      expect(calls.listAppend ?? 0).toBe(0);
      expect(await audit.verify('default')).toMatchObject({ ok: true, events: 200, head: { seq: 199 } });
      const lines: string[] = [];
      for await (const line of audit.export('default')) lines.push(line);
      expect(lines.map((line) => (JSON.parse(line) as StoredAuditEvent).detail!.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
      expect((await audit.forRequest('default', 'req_3')).map((event) => event.detail!.n)).toEqual(Array.from({ length: 25 }, (_, i) => i * 8 + 3));
    } finally {
      await store.close();
    }
  });
});
