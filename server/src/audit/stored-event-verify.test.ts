import { canonicalize } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { keys, MemoryStore, type StreamEntry } from '../store/index.ts';
import type { ChainedAuditEvent } from './audit-event.ts';
import { createAuditLog } from './audit-log.ts';
import { chainText } from './chain-hash.ts';
import { storedEvent } from './stored-event.ts';
import { verifyChain } from './verify-chain.ts';
import { REQ } from './stored-event.test-support.ts';

/** Verifying a chain stored in the compact form: what it exports, and every edit, removal, reordering or move it finds where it stands. */
describe('verifying a chain stored in the compact form', () => {
  /** Five events in tenant `default`, as stored, and a verifier of stored entries. */
  async function stored(tenant = 'default') {
    const clock = new ManualClock();
    const store = new MemoryStore({ now: () => clock.now() });
    const audit = createAuditLog(store, clock, 3600);
    for (let n = 0; n < 5; n++) {
      clock.advance(1);
      await audit.record({ type: 'viewed', tenant, auth_req_id: REQ, sub: 'alice', device_id: 'dev_1', channel: 'device', detail: { n } });
    }
    const entries = await store.streamRange(keys.auditChain(tenant));
    const verify = (tenant: string, list: StreamEntry[]) =>
      verifyChain(
        tenant,
        list.map((entry) => storedEvent(entry, tenant) ?? entry),
      );
    return { audit, store, entries, verify };
  }
  const edit = (entries: StreamEntry[], k: number, change: Record<string, string>) => entries.map((entry, i) => (i === k ? { id: entry.id, fields: { ...entry.fields, ...change } } : entry));

  it('verifies as stored, and exports the same JSON lines as the events’ texts', async () => {
    const { audit, entries, verify } = await stored();
    expect(entries.every((entry) => entry.fields.t === 'viewed' && !('event' in entry.fields))).toBe(true);
    expect(await verify('default', entries)).toMatchObject({ ok: true, events: 5 });
    const lines: string[] = [];
    for await (const line of audit.export('default')) lines.push(line);
    expect(lines.map((line) => chainText(JSON.parse(line) as ChainedAuditEvent))).toEqual(entries.map((entry) => chainText(storedEvent(entry, 'default')!)));
    expect(lines.every((line) => line === canonicalize(JSON.parse(line)) && line.includes('"tenant":"default"'))).toBe(true);
  });

  it.each<[string, (fields: Record<string, string>) => Record<string, string>]>([
    ['its time moved by 1 ms', (fields) => ({ a: String(Number(fields.a) + 1) })],
    ['its detail edited', () => ({ d: '{"n":7}' })],
    ['a member added through x', () => ({ x: '{"reason":"approved_by_admin"}' })],
    ['its type changed', () => ({ t: 'approved' })],
    ['its sub dropped', () => ({ u: '' })],
  ])('finds an entry whose rebuilt event differs (%s) at the next link', async (_, change) => {
    const { entries, verify } = await stored();
    const report = await verify('default', edit(entries, 2, change(entries[2]!.fields)));
    expect(report.broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 3, found_seq: 3, message: 'event 2 was changed: event 3 holds another hash for it' });
  });

  it('finds an entry removed, two reordered, a seq rewritten and an unreadable entry where they stand', async () => {
    const { entries, verify } = await stored();
    expect(
      (
        await verify(
          'default',
          entries.filter((_, i) => i !== 1),
        )
      ).broken,
    ).toMatchObject({ reason: 'seq_mismatch', position: 1, found_seq: 2 });
    expect((await verify('default', [entries[0]!, entries[2]!, entries[1]!, ...entries.slice(3)])).broken).toMatchObject({ reason: 'seq_mismatch', position: 1, found_seq: 2 });
    expect((await verify('default', edit(entries, 3, { s: '4' }))).broken).toMatchObject({ reason: 'seq_mismatch', position: 3, found_seq: 4 });
    expect((await verify('default', edit(entries, 1, { s: '01' }))).broken).toMatchObject({ reason: 'unreadable', position: 1 });
  });

  it('finds an entry re-tenanted: moved to another tenant’s stream, it rebuilds as that tenant’s event and breaks the chain', async () => {
    const { entries, verify } = await stored();
    // The whole chain under another key: its first event does not start that tenant's chain.
    expect((await verify('acme', entries)).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 0, message: 'event 0 does not start the tenant’s chain' });
    // One entry of another tenant's chain, same seq, spliced in: its own link no longer holds.
    const other = await stored('acme');
    const spliced = entries.map((entry, i) => (i === 2 ? other.entries[2]! : entry));
    expect((await verify('default', spliced)).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 2 });
  });

  it('verifies a chain that starts in the earlier form and goes on in the compact one', async () => {
    const { entries, verify } = await stored();
    const mixed = entries.map((entry, i) => (i < 2 ? { id: entry.id, fields: { event: chainText(storedEvent(entry, 'default')!) } } : entry));
    expect(await verify('default', mixed)).toEqual(await verify('default', entries));
    const edited = mixed.map((entry, i) => (i === 1 ? { id: entry.id, fields: { event: entry.fields.event!.replace('"viewed"', '"approved"') } } : entry));
    expect((await verify('default', edited)).broken).toMatchObject({ reason: 'prev_hash_mismatch', position: 2 });
  });
});
