import { describe, expect, it } from 'vitest';
import type { ChainedAuditEvent } from './audit-event.ts';
import { chainText, genesisHash } from './chain-hash.ts';
import { storedEvent } from './stored-event.ts';
import { entryOf, HASH, proposed, REQ } from './stored-event.test-support.ts';

/** An event stored as short fields and read back exactly, the earlier one-field form too, and what a malformed entry gives. */
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
