import { canonicalize } from '@countersign/shared';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { keys, MemoryStore, type Store } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';
import { MAX_BATCH } from './chain-appender.ts';
import { genesisHash } from './chain-hash.ts';
import { verifyChain } from './verify-chain.ts';

const ID = 'req_0123456789abcdef';

function world() {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  return { clock, store, audit: createAuditLog(store, clock, 3600) };
}

/** The store, with every call counted by method, batch sizes of `streamAppendManyAfter`, and a way to fail a method's next call. */
function counting(store: Store) {
  const calls: Record<string, number> = {};
  const sizes: number[] = [];
  const failing = new Set<string>();
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        if (name === 'streamAppendManyAfter') sizes.push((args[2] as unknown[]).length);
        if (failing.delete(name)) return Promise.reject(new Error(`${name} failed`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { counted, calls, sizes, failNext: (name: string) => void failing.add(name) };
}

async function lines(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of iterable) out.push(line);
  return out;
}

describe('createAuditLog', () => {
  it('chains each event to the one before: prev_hash = base64url(SHA-256(JCS(previous event)))', async () => {
    const { audit } = world();
    await audit.record({ type: 'proposed', tenant: 'default', auth_req_id: ID, client_id: 'cli_1', sub: 'alice', channel: 'agent' });
    await audit.record({ type: 'viewed', tenant: 'default', auth_req_id: ID, sub: 'alice', device_id: 'dev_1', channel: 'device' });
    const [first, second] = await audit.forRequest('default', ID);
    expect(first).toMatchObject({ seq: 0, prev_hash: genesisHash('default'), type: 'proposed', at: '2026-01-01T00:00:00.000Z' });
    const { id: _id, ...chained } = first!;
    expect(second).toMatchObject({ seq: 1, prev_hash: createHash('sha256').update(canonicalize(chained)).digest('base64url') });
    expect(genesisHash('default')).toBe(createHash('sha256').update('{"chain":"countersign-audit","tenant":"default"}').digest('base64url'));
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 2, head: { seq: 1, id: second!.id } });
  });

  it('keeps one chain per tenant', async () => {
    const { audit } = world();
    await audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'acme', channel: 'agent' });
    await audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent' });
    const acme = (await lines(audit.export('acme'))).map((line) => JSON.parse(line));
    expect(acme).toMatchObject([{ seq: 0, tenant: 'acme', prev_hash: genesisHash('acme') }]);
    expect((await verifyChain('default', await lines(audit.export('acme')))).broken?.reason).toBe('wrong_tenant');
  });

  it('does not fork when two instances append to one tenant at once', async () => {
    const { clock, store } = world();
    // Two audit logs on one store are two server instances: each has its own head cache and queue.
    const instances = [createAuditLog(store, clock, 3600), createAuditLog(store, clock, 3600)];
    const appends = Array.from({ length: 40 }, (_, i) => instances[i % 2]!.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n: i } }));
    await Promise.all(appends);
    const exported = (await lines(instances[0]!.export('default'))).map((line) => JSON.parse(line) as { seq: number; detail: { n: number } });
    expect(exported.map((event) => event.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(new Set(exported.map((event) => event.detail.n)).size).toBe(40);
    expect(await instances[1]!.verify('default')).toMatchObject({ ok: true, events: 40 });
  });

  it('group commit: 200 concurrent records land in a few script calls, in call order, and verify', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await Promise.all(Array.from({ length: 200 }, (_, n) => audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', auth_req_id: `req_${n % 4}`, channel: 'agent', detail: { n } })));
    expect(calls.streamAppendAfter ?? 0).toBe(0);
    expect(calls.streamAppendManyAfter).toBeGreaterThan(0);
    expect(calls.streamAppendManyAfter).toBeLessThanOrEqual(3);
    // The per-request view is indexed by the same script calls: no list append of its own.
    expect(calls.listAppend ?? 0).toBe(0);
    // Nor is the list of the layout before written: there is no key to delete.
    expect(await store.delete(keys.requestAudit('default', 'req_1'))).toBe(false);
    const exported = (await lines(audit.export('default'))).map((line) => JSON.parse(line) as { seq: number; detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 200, head: { seq: 199 } });
    expect((await audit.forRequest('default', 'req_1')).map((event) => event.detail?.n)).toEqual(Array.from({ length: 50 }, (_, i) => i * 4 + 1));
  });

  it('group commit: caps a batch, keeps batching while one is in flight, and chains across batches', async () => {
    const { clock, store } = world();
    const { counted, sizes } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    const first = Array.from({ length: MAX_BATCH + 10 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n } }));
    await Promise.resolve();
    const later = Array.from({ length: 5 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1000 + n } }));
    await Promise.all([...first, ...later]);
    expect(Math.max(...sizes)).toBe(MAX_BATCH);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(MAX_BATCH + 15);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: MAX_BATCH + 15 });
  });

  it('group commit: a batch that cannot be stored rejects each of its callers, and the next batch still links', async () => {
    const { clock, store } = world();
    const { counted, failNext } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 0 } });
    failNext('streamAppendManyAfter');
    const failed = await Promise.allSettled(Array.from({ length: 3 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1 + n } })));
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await Promise.all(Array.from({ length: 3 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 10 + n } })));
    const exported = (await lines(audit.export('default'))).map((line) => JSON.parse(line) as { detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual([0, 10, 11, 12]);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 4 });
  });

  it('stores each event once: the request view is the chain ids, appended in the same script call', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await Promise.all([ID, 'req_other', ID].map((id, n) => audit.record({ type: 'viewed', tenant: 'default', auth_req_id: id, channel: 'device', detail: { n } })));
    await audit.record({ type: 'refused', tenant: 'default', channel: 'agent' });
    expect(calls.streamAppendManyAfter).toBe(2);
    // And the tenant's registration for the retention, once per process.
    expect(calls.setAdd).toBe(1);
    expect(Object.keys(calls).sort()).toEqual(['setAdd', 'streamAppendManyAfter']);
    const chain = await store.streamRange(keys.auditChain('default'));
    expect(await store.streamIndexRead(keys.requestAuditIndex('default', ID))).toEqual([chain[0]!.id, chain[2]!.id]);
    expect(await store.streamIndexRead(keys.requestAuditIndex('default', 'req_other'))).toEqual([chain[1]!.id]);
    const view = await audit.forRequest('default', ID);
    expect(view.map((event) => [event.seq, event.id, event.detail?.n])).toEqual([
      [0, chain[0]!.id, 0],
      [2, chain[2]!.id, 2],
    ]);
    expect(await audit.forRequest('default', 'req_none')).toEqual([]);
  });

  it('a failed append rejects its callers and indexes none of its events', async () => {
    const { clock, store } = world();
    const { counted, failNext } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    failNext('streamAppendManyAfter');
    const results = await Promise.allSettled([ID, 'req_other'].map((id) => audit.record({ type: 'viewed', tenant: 'default', auth_req_id: id, channel: 'device' })));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await audit.forRequest('default', ID)).toEqual([]);
    await audit.record({ type: 'viewed', tenant: 'default', auth_req_id: ID, channel: 'device' });
    expect((await audit.forRequest('default', ID)).map((event) => event.seq)).toEqual([0]);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 1 });
  });

  it('group commit: a batch that lost a race to another instance is re-chained whole on the new head', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const mine = createAuditLog(counted, clock, 3600);
    const other = createAuditLog(store, clock, 3600);
    await mine.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 0 } });
    await other.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1 } });
    await other.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 2 } });
    const before = calls.streamAppendManyAfter!;
    await Promise.all(Array.from({ length: 5 }, (_, n) => mine.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 3 + n } })));
    expect(calls.streamAppendManyAfter! - before).toBe(2);
    const exported = (await lines(mine.export('default'))).map((line) => JSON.parse(line) as { seq: number; detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await mine.verify('default')).toMatchObject({ ok: true, events: 8, head: { seq: 7 } });
  });

  it('refuses a detail member named like a credential and redacts a JWT in a detail value', async () => {
    const { audit } = world();
    await expect(audit.record({ type: 'token_issued', tenant: 'default', channel: 'agent', detail: { access_token: 'x' } })).rejects.toThrow(TypeError);
    await audit.record({ type: 'outcome', tenant: 'default', auth_req_id: ID, channel: 'agent', detail: { reference: 'see eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln please' } });
    expect((await audit.forRequest('default', ID))[0]?.detail).toEqual({ reference: 'see [redacted] please' });
  });

  it('fails closed rather than link to an unreadable newest entry', async () => {
    const { audit, store } = world();
    await (store as Store).streamAppend(keys.auditChain('default'), { event: 'not json' });
    await expect(audit.record({ type: 'refused', tenant: 'default', channel: 'agent' })).rejects.toThrow(/unreadable/);
  });
});

describe('verifyChain', () => {
  async function chainOf(count: number) {
    const { audit } = world();
    for (let n = 0; n < count; n++) await audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n } });
    return (await lines(audit.export('default'))).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('finds an edited event at the next link, a deleted one at the gap, and a cut end against an anchor', async () => {
    const events = await chainOf(5);
    const edited = events.map((event, i) => (i === 2 ? { ...event, reason: 'approved_by_admin' } : event));
    expect((await verifyChain('default', edited)).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 3, found_seq: 3, message: 'event 2 was changed: event 3 holds another hash for it' });
    const deleted = events.filter((_, i) => i !== 1);
    expect((await verifyChain('default', deleted)).broken).toMatchObject({ reason: 'seq_mismatch', position: 1, expected_seq: 1, found_seq: 2 });
    const whole = await verifyChain('default', events);
    expect(whole.ok).toBe(true);
    expect((await verifyChain('default', events.slice(0, 4), whole.head!)).broken).toMatchObject({ reason: 'anchor_mismatch', position: 4 });
    expect((await verifyChain('default', events, whole.head!)).ok).toBe(true);
    expect((await verifyChain('default', ['{not json', ...events])).broken).toMatchObject({ reason: 'unreadable', position: 0 });
  });
});
