import { canonicalize } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { keys, MemoryStore, type StreamEntry } from '../store/index.ts';
import type { ChainedAuditEvent } from './audit-event.ts';
import { createAuditLog } from './audit-log.ts';
import { chainText, genesisHash } from './chain-hash.ts';
import { storedEvent, storedFields } from './stored-event.ts';
import { verifyChain } from './verify-chain.ts';

const HASH = 'aKM7Va8N4DGd25R50DxpZ6g8JYbOFduj-GTQyRiYTV4';
const REQ = 'RWT4vbs9kB9jV7yTz-keoNZ2PJZYSbIbks3CcFA0ZN8';

const proposed: ChainedAuditEvent = {
  type: 'proposed',
  tenant: 'mem-0',
  auth_req_id: REQ,
  client_id: 'cli_zHiUAxG1T8KHgsaFFY8qrA',
  sub: 'mem-0-user-24',
  channel: 'agent',
  at: '2026-11-29T18:54:22.394Z',
  detail: { details_hash: HASH, expires_in: 300, tier: 'standard', parties: 'customer', number_matching: false },
  seq: 2524,
  prev_hash: HASH,
};

/** A stream entry holding `event` as the appender stores it. */
function entryOf(event: ChainedAuditEvent, id = '1795978462394-0'): StreamEntry {
  return { id, fields: storedFields(event, event.tenant, chainText(event)) };
}

describe('storedFields and storedEvent', () => {
  it('store an event as ten short fields, without its tenant and with `at` in epoch ms, and rebuild exactly its hashed text', () => {
    const entry = entryOf(proposed);
    expect(Object.keys(entry.fields)).toEqual(['t', 's', 'p', 'a', 'r', 'c', 'u', 'h', 'd', 'x']);
    expect(entry.fields).toEqual({
      t: 'proposed',
      s: '2524',
      p: HASH,
      a: String(Date.parse(proposed.at)),
      r: REQ,
      c: 'cli_zHiUAxG1T8KHgsaFFY8qrA',
      u: 'mem-0-user-24',
      h: 'agent',
      d: `P${JSON.stringify([HASH, 300, false, 'customer', 'standard'])}`,
      x: '',
    });
    expect(JSON.stringify(entry.fields)).not.toContain('mem-0"');
    const rebuilt = storedEvent(entry, 'mem-0')!;
    expect(chainText(rebuilt)).toBe(chainText(proposed));
    // Members in JCS order with the stream id last, as an event parsed from its text.
    expect(JSON.stringify(rebuilt)).toBe(`${chainText(proposed).slice(0, -1)},"id":"1795978462394-0"}`);
  });

  it.each<[string, Partial<ChainedAuditEvent> & Record<string, unknown>]>([
    ['a device decision (device_id, credential_id in x)', { type: 'approved', channel: 'device', device_id: 'dev_1', credential_id: 'cred_1', detail: undefined }],
    ['a refusal with a reason and no request', { type: 'refused', reason: 'invalid_request', auth_req_id: undefined, sub: undefined, client_id: undefined, detail: { records: 'order:1042' } }],
    ['the first event (seq 0)', { seq: 0, prev_hash: genesisHash('mem-0') }],
    ['empty strings', { sub: '', client_id: '', reason: '' }],
    ['an `at` that is not toISOString’s', { at: '2026-11-29T18:54:22Z' }],
    ['a lone surrogate and emoji', { sub: 'a\ud800b', detail: { reference: 'Zahlung € 49,00 ✓ 😀', count: 3, ok: true } }],
    ['an unknown member', { extra: { nested: [1, 'two'] } }],
    ['a detail that is not an object', { detail: 'x' as never }],
    ['a detail of a known shape with a value that is not plain', { detail: { details_hash: 'h', expires_in: 300, tier: 'standard', parties: 'customer', number_matching: null } as never }],
    ['a detail of a known shape with a non-ASCII value', { type: 'denied', detail: { party: 'customer', cause: 'nicht ich — 😀' } }],
    ['a detail with one member more than a known shape', { type: 'pushed', detail: { sent: 1, removed: 0, failed: 0, attempts: 2 } }],
  ])('rebuild %s exactly', (_, change) => {
    const event = { ...proposed, ...change } as ChainedAuditEvent;
    for (const member of Object.keys(event) as (keyof ChainedAuditEvent)[]) if (event[member] === undefined) delete event[member];
    const entry = entryOf(event);
    expect(entry.fields.event).toBeUndefined();
    expect(chainText(storedEvent(entry, 'mem-0')!)).toBe(chainText(event));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['pushed', { sent: 1, removed: 0, failed: 0 }, 'S[0,0,1]'],
    ['approved', { party: 'customer', tier: 'standard' }, 'A["customer","standard"]'],
    ['redeemed', { redemption_id: 'rdm_x.y' }, 'R["rdm_x.y"]'],
  ])('store the detail of a %s event by its shape', (type, detail, stored) => {
    const event = { ...proposed, type, detail } as ChainedAuditEvent;
    const entry = entryOf(event);
    expect(entry.fields.d).toBe(stored);
    expect(storedEvent(entry, 'mem-0')!.detail).toEqual(detail);
    expect(chainText(storedEvent(entry, 'mem-0')!)).toBe(chainText(event));
  });

  it('keep a member that has no field of its own, or does not fit its field, in x', () => {
    const fields = entryOf({ ...proposed, sub: 'a\ud800b', client_id: '', reason: 'invalid_request', at: '2026-11-29T18:54:22Z' }).fields;
    expect(fields).toMatchObject({ u: '', c: '', a: '' });
    expect(JSON.parse(fields.x!)).toEqual({ at: '2026-11-29T18:54:22Z', client_id: '', reason: 'invalid_request', sub: 'a\ud800b' });
  });

  it('read an entry of the earlier form: one `event` field holding the JSON', () => {
    const entry = { id: '1-0', fields: { event: chainText(proposed) } };
    expect(storedEvent(entry, 'mem-0')).toEqual({ ...proposed, id: '1-0' });
    // Its tenant is its own, not the key's: the verifier still reports one from another chain.
    expect(storedEvent(entry, 'acme')?.tenant).toBe('mem-0');
  });

  it.each<[string, (fields: Record<string, string>) => void]>([
    ['an extra field', (fields) => void (fields.z = '1')],
    ['a missing field', (fields) => void delete fields.x],
    ['a seq that is not a plain decimal', (fields) => void (fields.s = '01')],
    ['a negative seq', (fields) => void (fields.s = '-1')],
    ['an `at` that is not a decimal', (fields) => void (fields.a = '1.5')],
    ['an `at` past Date’s range', (fields) => void (fields.a = '9000000000000000')],
    ['a detail that is not a JSON object', (fields) => void (fields.d = '[1]')],
    ['a shaped detail with too few values', (fields) => void (fields.d = 'S[0,1]')],
    ['a shaped detail that is not JSON', (fields) => void (fields.d = 'S[0,1,')],
    ['x that is not a JSON object', (fields) => void (fields.x = '{')],
    ['a member both in x and in its own field', (fields) => void (fields.x = '{"seq":1}')],
    ['no seq at all', (fields) => void (fields.s = '')],
  ])('refuse to read %s (an unreadable entry)', (_, spoil) => {
    const entry = entryOf(proposed);
    spoil(entry.fields);
    expect(storedEvent(entry, 'mem-0')).toBeNull();
  });
});

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
