import { canonicalize } from '@countersign/shared';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys, type Store } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';
import { genesisHash } from './chain-hash.ts';
import { verifyChain } from './verify-chain.ts';
import { ID, lines, world } from './audit-log.test-support.ts';

/** The audit chain: each event linked to the one before, one chain per tenant that two instances do not fork, no credential recorded, and `verifyChain` finding what was changed. */
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
