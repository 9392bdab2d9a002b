/** The audit trail (docs/design.md guarantee 9, docs/audit.md): an edited, moved or deleted event in the Redis Stream shows at the right link. */
import { canonicalize } from '@countersign/shared';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { StoredAuditEvent } from '../../../server/src/audit/index.ts';
import { runAuditCommand } from '../../../server/src/cli/audit-command.ts';
import { createHarness, type Harness } from '../../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../../support/notification-receiver.ts';
import { wholeFlow, exported } from './support.ts';

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
