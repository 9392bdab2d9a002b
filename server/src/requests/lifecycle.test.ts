import type { RequestState } from '@countersign/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { keys, type Fields, type Store } from '../store/index.ts';
import { MANDATE_OPS, outboxOf, TRANSITIONS, type Lifecycle, type SwapResult, type TransitionOp } from './lifecycle.ts';
import { LIFECYCLE_STORES, lifecycleWorld } from './lifecycle.test-support.ts';
import { testRequest } from './request-fixture.ts';
import { fromFields, toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/**
 * The transition table of the request lifecycle, exhaustively: every state × every operation, on
 * the memory store and on Redis. An operation applies exactly when the table lists the state among
 * its `from`, lands in its `to`, writes its outbox entry with it and hands it to the consequences
 * once; in any other state it changes nothing at all (record, outbox, marks).
 */

const STATES: RequestState[] = ['pending', 'approved', 'denied', 'expired', 'redeemed'];
const OPS = Object.keys(TRANSITIONS) as TransitionOp[];
/** `propose` is the creation (a new record with `ob:0`), not a swap of an existing one. */
const SWAPS = OPS.filter((op) => op !== 'propose' && !(MANDATE_OPS as readonly string[]).includes(op));

const JTI = 'jti_0123456789abcdef';
const TOKEN_HASH = 'sha256_of_the_issued_token';
const HASH = 'details_hash_of_the_action';
const REDEMPTION = 'rdm_0123456789.req_lifecycle_0000000000';

let count = 0;

/** A record in `state` with everything `op` needs but the state itself, so only the state decides. */
function fixture(state: RequestState, op: TransitionOp, now: number): ApprovalRequest {
  count += 1;
  const past = now - 1;
  const future = now + 60_000;
  const expiring = op === 'expire';
  return testRequest(`req_lifecycle_${String(count).padStart(10, '0')}`, now - 10_000, 0, {
    details_hash: HASH,
    state,
    expires_at: expiring ? past : future,
    token_delivery_mode: 'poll',
    outcome: state === 'redeemed' ? { status: 'unknown' } : null,
    ...(op === 'approveParty' ? { parties: ['customer', 'role:finance'] } : {}),
    ...(op === 'escalate' ? { escalation: [{ at: past, party: 'role:finance' }] } : {}),
    ...(state !== 'pending' ? { decided_at: now - 5000, decided_by: 'dev_1' } : {}),
    ...(state === 'approved' || state === 'redeemed' || state === 'expired' ? { approval_expires_at: expiring ? past : future } : {}),
    ...((state === 'approved' && op !== 'issueToken') || state === 'redeemed' ? { token_jti: JTI } : {}),
    ...(state === 'redeemed' ? { redemption_id: REDEMPTION, redeemed_at: now - 1000 } : {}),
  });
}

/** The record of {@link fixture} as the store keeps it: `toFields` writes what a creation writes, the rest is what later swaps wrote. */
function recordOf(request: ApprovalRequest): Fields {
  const later: Fields = {};
  for (const name of ['decided_at', 'decided_by', 'approval_expires_at', 'token_jti', 'redemption_id', 'redeemed_at'] as const) {
    if (request[name] !== undefined) later[name] = String(request[name]);
  }
  if (request.outcome) later.outcome_status = request.outcome.status;
  if (request.token_jti) later.token_hash = TOKEN_HASH;
  return { ...toFields(request), ...later };
}

function apply(lifecycle: Lifecycle, op: TransitionOp, request: ApprovalRequest, fields: Fields, now: number): Promise<SwapResult> {
  const device = { sub: 'alice', device_id: 'dev_1', credential_id: 'cred_1' };
  switch (op) {
    case 'approve':
    case 'approveParty':
      return lifecycle.approve(fields, { party: 'customer', ...device }, now);
    case 'deny':
      return lifecycle.deny(request, { party: 'customer', cause: 'denied', ...device }, now);
    case 'escalate':
      return lifecycle.escalate(request, now);
    case 'expire':
      return lifecycle.expire(request, now);
    case 'issueToken':
      return lifecycle.issueToken(request, { jti: JTI, hash: TOKEN_HASH, expires_in: 600 }, {}, now);
    case 'redeem':
      return lifecycle.redeem(request, { jti: JTI, hash: TOKEN_HASH, details_hash: HASH, redemption_id: REDEMPTION }, now);
    case 'reportOutcome':
      return lifecycle.reportOutcome(request, REDEMPTION, { status: 'succeeded', reference: 'ref_1' }, now);
    case 'flagOutcome':
      return lifecycle.flagOutcome(request, REDEMPTION, now);
    case 'propose':
      throw new Error('propose is the creation');
    default:
      // The mandate operations have a table of their own (server/src/mandates/mandate-lifecycle.test.ts).
      throw new Error(`${op} is a mandate operation`);
  }
}

describe.each(LIFECYCLE_STORES)('the lifecycle on the %s store', (_kind, makeStore) => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  async function world() {
    const store = await makeStore();
    stores.push(store);
    return lifecycleWorld(store);
  }

  const cases = STATES.flatMap((state) => SWAPS.map((op) => [state, op] as const));

  it.each(cases)('%s × %s', async (state, op) => {
    const w = await world();
    const now = w.clock.now();
    const request = fixture(state, op, now);
    const key = keys.request(request.tenant, request.auth_req_id);
    await w.store.hashCreate(key, recordOf(request), 3600);
    const before = (await w.store.hashGet(key))!;

    const result = await apply(w.lifecycle, op, request, before, now);
    await w.background.drain();
    const transition = TRANSITIONS[op];
    const applies = (transition.from as readonly RequestState[]).includes(state);
    const after = (await w.store.hashGet(key))!;
    const marksAfter = await w.store.sortedRangeByScore(keys.outboxDue(), Number.MAX_SAFE_INTEGER, 10_000);

    expect(result.ok).toBe(applies);
    // No mark is left behind either way: a refusal takes its own back, a delivery drops it.
    expect(marksAfter.filter((mark) => mark.includes(request.auth_req_id))).toEqual([]);
    if (!applies) {
      expect(after).toEqual(before);
      expect(w.delivered).toEqual([]);
      return;
    }
    expect(fromFields(after).state).toBe(transition.to);
    // Delivered once, with its place, then cleared: the record keeps the count, not the entry.
    expect(w.delivered).toEqual([{ op, seq: 1, state: transition.to }]);
    expect(after.seq).toBe('1');
    expect(outboxOf(after)).toEqual([]);
    expect(result.ok && outboxOf(result.fields).map((entry) => entry.transition.op)).toEqual([op]);
  });

  it('every operation is in the table, and the table names only real states', () => {
    for (const op of OPS) for (const state of [...TRANSITIONS[op].from, TRANSITIONS[op].to]) expect(STATES).toContain(state);
    expect(OPS.sort()).toEqual(['approve', 'approveParty', 'deny', 'escalate', 'expire', 'flagOutcome', 'flagSpendOutcome', 'issueToken', 'propose', 'redeem', 'reportOutcome', 'reportSpendOutcome', 'revoke', 'spend']);
  });

  it('an approval read before an escalation does not land after it; the new holder’s does', async () => {
    const w = await world();
    const now = w.clock.now();
    const request = {
      ...fixture('pending', 'escalate', now),
      escalation: [
        { at: now - 1, party: 'role:finance' as const },
        { at: now + 30_000, party: 'role:risk' as const },
      ],
    };
    const key = keys.request(request.tenant, request.auth_req_id);
    await w.store.hashCreate(key, recordOf(request), 3600);
    const before = (await w.store.hashGet(key))!;
    const escalated = await w.lifecycle.escalate(fromFields(before), now);
    expect(escalated.ok && [escalated.request.escalation_step, escalated.request.parties, escalated.request.held_before]).toEqual([1, ['role:finance'], ['customer']]);
    // The customer's approval, from the record as read before the hand-over (when the customer held
    // it): the step guard refuses it, and nothing changes.
    expect((await w.lifecycle.approve(before, { party: 'customer', sub: 'alice', device_id: 'dev_1', credential_id: 'cred_1' }, now)).ok).toBe(false);
    expect(fromFields((await w.store.hashGet(key))!)).toMatchObject({ state: 'pending', approvals: [] });
    // The new holder, from a fresh read, approves alone.
    const approved = await w.lifecycle.approve((await w.store.hashGet(key))!, { party: 'role:finance', sub: 'rita', device_id: 'dev_2', credential_id: 'cred_2' }, now);
    expect(approved.ok && approved.request.state).toBe('approved');
  });

  it('a second application of a one-time operation is refused and delivers nothing more', async () => {
    const w = await world();
    const now = w.clock.now();
    for (const op of ['escalate', 'issueToken', 'redeem', 'reportOutcome', 'flagOutcome'] as const) {
      const from = TRANSITIONS[op].from[0];
      const request = fixture(from, op, now);
      const key = keys.request(request.tenant, request.auth_req_id);
      await w.store.hashCreate(key, recordOf(request), 3600);
      const first = await apply(w.lifecycle, op, request, (await w.store.hashGet(key))!, now);
      const second = await apply(w.lifecycle, op, first.ok ? first.request : request, (await w.store.hashGet(key))!, now);
      expect([op, first.ok, second.ok]).toEqual([op, true, false]);
    }
    await w.background.drain();
    expect(w.delivered.map((entry) => entry.op)).toEqual(['escalate', 'issueToken', 'redeem', 'reportOutcome', 'flagOutcome']);
  });
});
