import { keys } from '@countersign/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { eventHash, type StoredAuditEvent } from '../../server/src/audit/index.ts';
import { runAuditCommand } from '../../server/src/cli/audit-command.ts';
import type { StreamEntry } from '../../server/src/store/index.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { testPrefix } from '../support/redis.ts';
import { storeKeys } from '../support/store-keys.ts';

/**
 * Refusals and views cannot grow storage without bound (docs/security.md, docs/audit.md
 * "Retention"): the audit stream has a retention (`AUDIT_RETENTION_DAYS`, 400 by default). The
 * expiry sweeper trims each tenant's chain oldest first and keeps the head before the trim as the
 * chain's anchor, so `audit verify` still proves what is left, from there, and says so; an edited
 * event, or one deleted right after the anchor, is still found.
 */
const DAY = 86_400;
const CHAIN = keys.auditChain('default');

describe.each(['memory', 'redis'] as const)('the audit retention (%s store)', (storeKind) => {
  let harness: Harness;
  let prefix: string;
  afterEach(() => harness.close());

  async function start(env: Record<string, string> = {}) {
    prefix = testPrefix();
    harness = await createHarness({ store: storeKind, redisPrefix: prefix, env });
  }
  const record = (n: number) => harness.deps.audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n } });
  const exported = async () => {
    const lines: string[] = [];
    for await (const line of harness.deps.audit.export('default')) lines.push(line);
    return lines.map((line) => JSON.parse(line) as StoredAuditEvent & { retention_anchor?: { seq: number; hash: string; id: string; at: string } });
  };
  /** Rewrites the chain as someone with write access to the store could: the entries `edit` answers, in order. */
  async function rewrite(edit: (entries: StreamEntry[]) => StreamEntry[]) {
    const entries = await harness.store.streamRange(CHAIN);
    await harness.store.delete(CHAIN);
    for (const entry of edit(entries)) await harness.store.streamAppend(CHAIN, entry.fields);
  }
  /** Ten events: 0–4 recorded 401 days ago, 5–9 recorded 101 days ago; then one sweep. */
  async function tenEventsAndASweep() {
    for (let n = 0; n < 5; n++) await record(n);
    harness.clock.advance(300 * DAY);
    for (let n = 5; n < 10; n++) await record(n);
    harness.clock.advance(101 * DAY);
    const before = await exported();
    await harness.deps.sweeper.sweep();
    return before;
  }

  it('trims the events older than the retention, oldest first, keeps the newer ones, and verifies from the anchor', async () => {
    await start();
    const before = await tenEventsAndASweep();
    const after = await exported();
    expect(after[0]!.retention_anchor).toEqual({ seq: 4, hash: eventHash(before[4]!), id: before[4]!.id, at: before[4]!.at });
    expect(after.slice(1).map((event) => [event.seq, (event.detail as { n: number }).n])).toEqual([5, 6, 7, 8, 9].map((n) => [n, n]));
    expect((await harness.store.streamRange(CHAIN)).map((entry) => entry.id)).toEqual(before.slice(5).map((event) => event.id));

    const report = await harness.deps.audit.verify('default');
    expect(report).toEqual({ ok: true, tenant: 'default', events: 5, start: after[0]!.retention_anchor, head: { seq: 9, id: before[9]!.id, hash: eventHash(before[9]!) } });
    // The command says where it started; an export verifies offline from its first line.
    const out: string[] = [];
    const files = new Map([['export.jsonl', after.map((line) => JSON.stringify(line))]]);
    const context = {
      openAudit: async () => ({ audit: harness.deps.audit, close: async () => {} }),
      readLines: async function* (path: string) {
        yield* files.get(path) ?? [];
      },
      out: (line: string) => void out.push(line),
      err: () => {},
    };
    expect(await runAuditCommand(['verify', '--tenant', 'default'], context)).toBe(0);
    expect(out.pop()).toMatch(/^ok: tenant default, 5 events, the chain holds, from the retention anchor 4:[A-Za-z0-9_-]{43} \(events 0 to 4 trimmed, the last of \d{4}-.*\); head 9:/);
    expect(await runAuditCommand(['verify', '--tenant', 'default', '--file', 'export.jsonl'], context)).toBe(0);
    // A head recorded before the trim, older than the anchor, can no longer be checked: said, not passed.
    expect(await runAuditCommand(['verify', '--tenant', 'default', '--anchor', `2:${eventHash(before[2]!)}`, '--json'], context)).toBe(1);
    expect(JSON.parse(out.pop()!)).toMatchObject({ ok: false, broken: { reason: 'anchor_trimmed' } });

    // The chain goes on from its head; a second sweep within the retention trims nothing more.
    await record(10);
    await harness.deps.sweeper.sweep();
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: true, events: 6, start: { seq: 4 }, head: { seq: 10 } });
  });

  it('never trims the newest event, so the next one still links to it', async () => {
    await start();
    for (let n = 0; n < 3; n++) await record(n);
    harness.clock.advance(500 * DAY);
    await harness.deps.sweeper.sweep();
    expect((await exported()).map((line) => line.retention_anchor?.seq ?? line.seq)).toEqual([1, 2]);
    await record(3);
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: true, events: 2, start: { seq: 1 }, head: { seq: 3 } });
  });

  it('still finds an event edited after the trim, at the next link', async () => {
    await start();
    await tenEventsAndASweep();
    await rewrite((entries) => entries.map((entry, i) => (i === 2 ? { ...entry, fields: { ...entry.fields, d: entry.fields.d!.replace('7', '70') } } : entry)));
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: false, start: { seq: 4 }, broken: { reason: 'prev_hash_mismatch', position: 3, expected_seq: 8, message: 'event 7 was changed: event 8 holds another hash for it' } });
  });

  it('finds the event right after the anchor deleted, and a trim past the anchor', async () => {
    await start();
    await tenEventsAndASweep();
    await rewrite((entries) => entries.slice(1));
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: false, start: { seq: 4 }, broken: { reason: 'seq_mismatch', position: 0, expected_seq: 5, found_seq: 6, message: 'event 5 is missing: found seq 6 (deleted)' } });
    // The anchor gone as well: the chain no longer starts at the genesis hash either.
    await harness.store.delete(keys.auditAnchor('default'));
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: false, broken: { reason: 'seq_mismatch', position: 0, expected_seq: 0, found_seq: 6 } });
  });

  it('trims nothing past a link that does not verify, so the evidence stays', async () => {
    await start();
    for (let n = 0; n < 5; n++) await record(n);
    harness.clock.advance(401 * DAY);
    await record(5);
    // Event 2 edited in place: all of 0 to 4 are past the retention, but trimming them would hide it.
    await rewrite((entries) => entries.map((entry, i) => (i === 2 ? { ...entry, fields: { ...entry.fields, d: entry.fields.d!.replace('2', '20') } } : entry)));
    const [report] = await harness.deps.audit.trim();
    expect(report).toEqual({ tenant: 'default', trimmed: 0, anchor: null, stopped: expect.stringMatching(/does not link/) });
    await harness.deps.sweeper.sweep();
    expect(await harness.store.streamRange(CHAIN)).toHaveLength(6);
    expect(await harness.store.hashGet(keys.auditAnchor('default'))).toBeNull();
    expect(await harness.deps.audit.verify('default')).toMatchObject({ ok: false, broken: { reason: 'prev_hash_mismatch', expected_seq: 3, message: 'event 2 was changed: event 3 holds another hash for it' } });
  });

  it('keeps a request’s audit index no longer than the retention, so it cannot name trimmed events for long', async () => {
    await start({ AUDIT_RETENTION_DAYS: '1' });
    const id = 'reqRetention0123456789abcdef';
    await harness.deps.audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', auth_req_id: id, channel: 'agent' });
    const index = keys.requestAuditIndex('default', id);
    if (storeKind === 'redis') {
      const redis = new Redis(inject('redisUrl'));
      const ttl = await redis.pttl(`${prefix}${index}`);
      await redis.quit();
      expect(ttl).toBeGreaterThan(DAY * 1000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(DAY * 1000);
    } else {
      expect(await storeKeys(harness.store)).toContain(index);
      harness.clock.advance(DAY + 1);
      expect(await storeKeys(harness.store)).not.toContain(index);
    }
  });
});
