import { Redis } from 'ioredis';
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAuditLog, type AuditLog } from '../server/src/audit/index.ts';
import { runAuditCommand } from '../server/src/cli/audit-command.ts';
import { ManualClock, type Logger } from '../server/src/runtime/index.ts';
import { connectRedisStore, keys, type RedisStore } from '../server/src/store/index.ts';
import { startRedisServer, stopRedisServer, testPrefix, type RedisServerProcess } from './support/cluster.ts';

/**
 * The audit chain keeps its head where a reset is detected (docs/audit.md "Resets"): a Redis of this
 * file's own, without persistence, is flushed or restarted between appends; the instance that knew
 * the head goes on from it behind a `chain_reset` event, logs an error, and `verify` reports the
 * reset instead of "holds".
 */

const TENANT = 'default';

describe('audit chain reset (a Redis that lost its data), two instances', () => {
  let server: RedisServerProcess;
  let admin: Redis;
  let prefix: string;
  let clock: ManualClock;
  let stores: RedisStore[];
  let errors: { message: string; fields?: Record<string, unknown> }[];

  const log: Logger = { info: () => {}, warn: () => {}, error: (message, fields) => void errors.push({ message, ...(fields ? { fields } : {}) }) };
  /** One server instance's audit log: its own connection, its own appender (and head memory). */
  async function instance(options: { maxAgeSeconds?: number } = {}): Promise<AuditLog> {
    const store = await connectRedisStore(`redis://127.0.0.1:${server.port}`, { prefix, onError: () => {} });
    stores.push(store);
    return createAuditLog(store, clock, 3600, { ...options, log });
  }
  const event = (n: number) => ({ type: 'refused' as const, reason: 'invalid_request', tenant: TENANT, channel: 'agent' as const, detail: { n } });
  const chain = async () => (await admin.xrange(`${prefix}${keys.auditChain(TENANT)}`, '-', '+')).map(([, fields]) => fields);
  /** `audit verify --tenant default` as an operator runs it, on a connection of its own. */
  async function verifyCommand(): Promise<{ code: number; out: string[] }> {
    const out: string[] = [];
    const code = await runAuditCommand(['verify', '--tenant', TENANT], {
      openAudit: async () => {
        const store = await connectRedisStore(`redis://127.0.0.1:${server.port}`, { prefix });
        return { audit: createAuditLog(store, clock, 1), close: () => store.close() };
      },
      readLines: () => (async function* () {})(),
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    return { code, out };
  }

  beforeAll(async () => {
    server = await startRedisServer({ appendOnly: false });
    admin = new Redis(server.port, { lazyConnect: true, maxRetriesPerRequest: 20 });
    await admin.connect();
  });
  afterAll(async () => {
    admin.disconnect();
    await stopRedisServer(server);
    await rm(server.dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    prefix = testPrefix();
    clock = new ManualClock();
    stores = [];
    errors = [];
  });
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('after a FLUSHALL the instance goes on from the head it knew, behind a chain_reset, and verify reports the reset', async () => {
    const a = await instance();
    for (let n = 0; n < 3; n++) await a.record(event(n));
    const before = await a.verify(TENANT);
    expect(before).toMatchObject({ ok: true, events: 3, head: { seq: 2 } });
    await admin.flushall();

    await a.record(event(3));
    await a.record(event(4));
    const fields = await chain();
    // The chain goes on at seq 3, linked to event 2's hash; the first link says what was lost.
    expect(fields.map((entry) => entry[entry.indexOf('t') + 1])).toStrictEqual(['chain_reset', 'refused', 'refused']);
    expect(fields.map((entry) => entry[entry.indexOf('s') + 1])).toStrictEqual(['3', '4', '5']);
    expect(fields[0]![fields[0]!.indexOf('p') + 1]).toBe(before.head!.hash);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: expect.stringContaining('audit chain reset'), fields: { tenant: TENANT, lost_seq: 2, found_seq: null } });

    const report = await a.verify(TENANT);
    expect(report).toMatchObject({
      ok: false,
      events: 3,
      head: { seq: 5 },
      broken: { reason: 'chain_reset', position: 0, expected_seq: 0, found_seq: 3 },
      resets: [{ position: 0, seq: 3, expected_seq: 0, found_seq: -1 }],
    });
    expect(report.broken!.message).toBe('the chain was reset before event 3: an appender found the stream empty where it knew event 2, and went on from that; events 0 to 2 that are not here were lost');
    const command = await verifyCommand();
    expect(command.code).toBe(1);
    expect(command.out[0]).toMatch(/^reset: tenant default, the chain restarted once \(the store lost events\); first at position 0 \(stream id \d+-\d+\): the chain was reset before event 3: .* the links that are there hold; head 5:/);
  });

  it('after a restart without persistence, the instance that knew the newest head records the reset once; the other links on', async () => {
    const a = await instance();
    const b = await instance();
    await a.record(event(0));
    await a.record(event(1));
    await b.record(event(2)); // b learns the head from a lost race, then appends seq 2
    await stopRedisServer(server);
    server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly: false });
    expect(await admin.dbsize()).toBe(0);

    await b.record(event(3)); // b knows seq 2: reset at 3, event at 4
    await a.record(event(4)); // a knows seq 1 only: the stream is ahead of it, an ordinary lost race
    const fields = await chain();
    expect(fields.map((entry) => `${entry[entry.indexOf('t') + 1]}:${entry[entry.indexOf('s') + 1]}`)).toStrictEqual(['chain_reset:3', 'refused:4', 'refused:5']);
    expect(errors.map((error) => error.fields?.lost_seq)).toStrictEqual([2]);
    const report = await a.verify(TENANT);
    expect(report).toMatchObject({ ok: false, head: { seq: 5 }, broken: { reason: 'chain_reset' }, resets: [{ seq: 3, expected_seq: 0, found_seq: -1 }] });
    expect(report.resets).toHaveLength(1);
  });

  it('a stream that ends before the head it knew (an older snapshot) is a reset too: the gap is named', async () => {
    const a = await instance();
    for (let n = 0; n < 4; n++) await a.record(event(n));
    // The newest two entries gone, as a restore from a snapshot taken after event 1 leaves it.
    const key = `${prefix}${keys.auditChain(TENANT)}`;
    const ids = (await admin.xrange(key, '-', '+')).map(([id]) => id);
    await admin.xdel(key, ids[2]!, ids[3]!);

    await a.record(event(4));
    const report = await a.verify(TENANT);
    expect(report).toMatchObject({ ok: false, events: 4, head: { seq: 5 }, broken: { reason: 'chain_reset', position: 2 }, resets: [{ position: 2, seq: 4, expected_seq: 2, found_seq: 1 }] });
    expect(report.broken!.message).toContain('an appender found its newest event at seq 1 where it knew event 3');
    expect(errors.map((error) => error.fields)).toStrictEqual([{ tenant: TENANT, lost_seq: 3, lost_id: ids[3], found_seq: 1, found_id: ids[1] }]);
  });

  it('a deletion after a reset is still found: the reset does not excuse the links after it', async () => {
    const a = await instance();
    await a.record(event(0));
    await admin.flushall();
    for (let n = 1; n < 4; n++) await a.record(event(n)); // chain_reset 1, events 2, 3, 4
    const key = `${prefix}${keys.auditChain(TENANT)}`;
    const ids = (await admin.xrange(key, '-', '+')).map(([id]) => id);
    await admin.xdel(key, ids[2]!);
    const report = await a.verify(TENANT);
    expect(report).toMatchObject({ ok: false, broken: { reason: 'seq_mismatch', position: 2, expected_seq: 3, found_seq: 4 }, resets: [{ position: 0, seq: 1 }] });
  });

  it('when no instance remembers the head, the new chain cannot tell; a head recorded outside (--anchor) can', async () => {
    const a = await instance();
    for (let n = 0; n < 3; n++) await a.record(event(n));
    const recorded = (await a.verify(TENANT)).head!;
    await admin.flushall();
    const fresh = await instance(); // every instance restarted: nobody knows seq 2
    await fresh.record(event(0));
    expect(await fresh.verify(TENANT)).toMatchObject({ ok: true, events: 1 });
    expect(await fresh.verify(TENANT, recorded)).toMatchObject({ ok: false, broken: { reason: 'anchor_mismatch' } });
    expect(errors).toStrictEqual([]);
  });

  it('the retention trims through a reset link, and what it keeps verifies', async () => {
    const a = await instance({ maxAgeSeconds: 60 });
    for (let n = 0; n < 2; n++) await a.record(event(n));
    await admin.flushall();
    await a.record(event(2));
    await a.record(event(3));
    clock.advance(120);
    await a.record(event(4));
    const [trim] = await a.trim();
    expect(trim).toMatchObject({ tenant: TENANT, trimmed: 3, anchor: { seq: 4 } });
    expect(trim!.stopped).toBeUndefined();
    // Every event lost at the reset was older than the reset link, which the retention removed: nothing due to be kept is missing.
    expect(await a.verify(TENANT)).toMatchObject({ ok: true, events: 1, start: { seq: 4 }, head: { seq: 5 } });
  });
});
