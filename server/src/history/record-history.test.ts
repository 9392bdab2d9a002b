import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../requests/index.ts';
import { ManualClock } from '../runtime/index.ts';
import { MemoryStore } from '../store/index.ts';
import { listHistory } from './list-history.ts';
import { HISTORY_LIMIT, historyKey, recordHistory } from './record-history.ts';

const session = { tenant: 'acme', sub: 'alice', device_id: 'dev_phone' };

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    auth_req_id: 'req_0000000000000001',
    tenant: 'acme',
    client_id: 'cli_1',
    client_name: 'Refund agent',
    sub: 'alice',
    scope: 'openid',
    binding_message: null,
    authorization_details: [{ type: 'payment', transaction_id: 'txn_1', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund' }],
    details_hash: 'hash',
    state: 'approved',
    created_at: Date.parse('2026-01-01T00:00:00Z'),
    expires_at: Date.parse('2026-01-01T00:05:00Z'),
    approval_expires_at: Date.parse('2026-01-01T00:15:00Z'),
    interval: 5,
    token_delivery_mode: 'poll',
    outcome: null,
    tier: 'standard',
    parties: ['customer'],
    approvals: [{ party: 'customer', sub: 'alice', device_id: 'dev_phone', credential_id: 'cred', at: Date.parse('2026-01-01T00:01:00Z') }],
    ...overrides,
  };
}

describe('recordHistory', () => {
  it('never moves an entry back to an earlier stage when writes arrive out of order', async () => {
    const deps = { store: new MemoryStore(), clock: new ManualClock(Date.parse('2026-01-01T00:02:00Z')) };
    const redeemed = request({ state: 'redeemed', redeemed_at: deps.clock.now(), outcome: { status: 'unknown' } });
    const reported = { ...redeemed, outcome: { status: 'succeeded' as const, reference: 're_1' } };
    await recordHistory(deps, reported);
    await recordHistory(deps, redeemed);
    await recordHistory(deps, request());
    expect(await listHistory(deps, session)).toEqual([expect.objectContaining({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' }, your_part: expect.objectContaining({ decision: 'approved' }) })]);
  });

  it(`keeps the ${HISTORY_LIMIT} entries recorded last, and never throws when the store fails`, async () => {
    const deps = { store: new MemoryStore(), clock: new ManualClock() };
    const sizes: number[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 40; i++) {
      deps.clock.advance(1);
      await recordHistory(deps, request({ auth_req_id: `req_${String(i).padStart(16, '0')}`, state: 'denied', approvals: [] }), { sub: 'alice', party: 'customer', cause: 'denied' });
      sizes.push(await deps.store.hashLength(historyKey(session.tenant, session.sub)));
    }
    const entries = await listHistory(deps, session);
    expect(entries).toHaveLength(HISTORY_LIMIT);
    expect(entries[0]!.auth_req_id).toBe(`req_${String(HISTORY_LIMIT + 39).padStart(16, '0')}`);
    expect(entries.at(-1)!.auth_req_id).toBe(`req_${String(40).padStart(16, '0')}`);
    // Trimmed back to the limit once it holds 16 more, so a write reads the whole history once per 16 new entries.
    expect(Math.max(...sizes)).toBe(HISTORY_LIMIT + 16);
    expect(sizes[HISTORY_LIMIT + 16]).toBe(HISTORY_LIMIT);

    // A history written before the order index existed is trimmed by reading it whole.
    const legacy = { store: new MemoryStore(), clock: new ManualClock() };
    for (let i = 0; i < HISTORY_LIMIT + 16; i++) {
      legacy.clock.advance(1);
      await recordHistory(legacy, request({ auth_req_id: `req_${String(i).padStart(16, '0')}`, state: 'denied', approvals: [] }), { sub: 'alice', party: 'customer', cause: 'denied' });
    }
    await legacy.store.delete('historyorder:{acme:alice}');
    legacy.clock.advance(1);
    await recordHistory(legacy, request({ auth_req_id: 'req_newest_000000000', state: 'denied', approvals: [] }), { sub: 'alice', party: 'customer', cause: 'denied' });
    expect(await legacy.store.hashLength(historyKey(session.tenant, session.sub))).toBe(HISTORY_LIMIT);
    expect((await listHistory(legacy, session))[0]!.auth_req_id).toBe('req_newest_000000000');

    const warnings: string[] = [];
    const broken = { ...deps, store: { ...deps.store, hashGetField: () => Promise.reject(new Error('down')), hashLength: () => Promise.resolve(0) } as unknown as MemoryStore, log: { info() {}, error() {}, warn: (message: string) => warnings.push(message) } };
    await expect(recordHistory(broken, request())).resolves.toBeUndefined();
    expect(warnings).toEqual(['history not recorded']);
  });
});
