import { keys } from '@countersign/server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { disallowedChanges, expectOnlyAllowedChanges } from './support/allowed-changes.ts';
import { readKey } from './support/key-state.ts';
import { watchStore, type Change, type StoreWatch } from './support/store-watch.ts';

/**
 * The watcher of the bad-input suite and the fuzz test (`support/store-watch.ts`) must see what a
 * broken endpoint does. Each case mounts `/bc-authorize` behind a wrapper that, when the real
 * endpoint refuses, does one more thing a refusal must never do, sends the same bad request, and
 * checks that the watcher reports exactly that; the control sends it to the real endpoint and the
 * check passes. On the memory store and on Redis.
 */

const FORM = 'application/x-www-form-urlencoded';

interface Setup {
  h: Harness;
  watch: StoreWatch;
  authorization: string;
  /** Alice's pending request. */
  pending: string;
}

/** A bad `/bc-authorize` call: an unknown currency, refused with `invalid_authorization_details`. */
function badRequest(s: Setup): RequestInit {
  const body = new URLSearchParams({ scope: 'openid', login_hint: 'alice', binding_message: 'Refund 1042', authorization_details: JSON.stringify(payment({ transaction_id: 'txn_bad', currency: 'XXX' })) });
  return { method: 'POST', headers: { 'content-type': FORM, authorization: s.authorization }, body: body.toString() };
}

/** `/bc-authorize` as the app serves it, plus `mischief` whenever it refuses. */
function brokenEndpoint(s: Setup, mischief: () => Promise<unknown>): Hono {
  const app = new Hono();
  app.post('/bc-authorize', async (c) => {
    const answer = await s.h.app.fetch(c.req.raw);
    if (answer.status >= 400) await mischief();
    return answer;
  });
  return app;
}

/** Sends the bad request to `app` while the store is watched; answers the refusal's error and the changes. */
async function refuse(s: Setup, app: Pick<Hono, 'request'>): Promise<{ error: string; changes: Change[] }> {
  await s.h.deps.background.drain();
  s.watch.begin();
  const answer = await app.request(`${s.h.issuer}/bc-authorize`, badRequest(s));
  await s.h.deps.background.drain();
  const changes = await s.watch.end();
  expect(answer.status).toBe(400);
  const body = (await answer.json()) as { error: string };
  expect(body.error).toBe('invalid_authorization_details');
  return { error: body.error, changes };
}

describe.each(['memory', 'redis'] as const)('the store watcher (%s store)', (storeKind) => {
  const s = {} as Setup;

  beforeAll(async () => {
    s.h = await createHarness({ store: storeKind });
    await s.h.enrollUser('alice');
    const client = await s.h.createClient('Agent A');
    s.authorization = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    const body = new URLSearchParams({ scope: 'openid', login_hint: 'alice', binding_message: 'Refund 1042', authorization_details: JSON.stringify(payment({ transaction_id: 'txn_pending' })) });
    const asked = await s.h.app.request(`${s.h.issuer}/bc-authorize`, { method: 'POST', headers: { 'content-type': FORM, authorization: s.authorization }, body: body.toString() });
    expect(asked.status).toBe(200);
    s.pending = ((await asked.json()) as { auth_req_id: string }).auth_req_id;
    s.watch = watchStore(s.h.store);
  });
  afterAll(() => s.h?.close());

  it('passes the real endpoint, whose refusal counts against its rate limit and appends one refused event to the audit chain', async () => {
    const { error, changes } = await refuse(s, s.h.app);
    const rateKey = changes.find((change) => change.key.startsWith('rate:'))?.key;
    expect(rateKey).toMatch(/^rate:\{bcAuthorize:default:cli_[A-Za-z0-9_-]+\}$/);
    expect(changes.map((change) => [change.key, change.appended.length])).toEqual([
      [rateKey, 0],
      ['auditlog:{default}', 1],
    ]);
    expect(disallowedChanges(changes, { error })).toEqual([]);
  });

  it('reports an endpoint that audits `approved` on bad input', async () => {
    const broken = brokenEndpoint(s, () => s.h.deps.audit.record({ type: 'approved', tenant: 'default', channel: 'device', auth_req_id: s.pending, sub: 'alice' }));
    const { error, changes } = await refuse(s, broken);
    const problems = disallowedChanges(changes, { error });
    expect(problems.join('\n')).toContain(`auditlog:{default}: a refusal (invalid_authorization_details) audited approved for ${s.pending}`);
    // The approved event's id in the request's index is not a refused event's: reported too.
    expect(problems.join('\n')).toContain(`auditidx:{default}:${s.pending}: an index may only gain the ids of the refused events`);
    expect(() => expectOnlyAllowedChanges(changes, { error })).toThrow(/audited approved/);
  });

  it('reports an endpoint that audits its refusal with another reason', async () => {
    const broken = brokenEndpoint(s, () => s.h.deps.audit.record({ type: 'refused', reason: 'unknown_user_id', tenant: 'default', channel: 'agent' }));
    const { error, changes } = await refuse(s, broken);
    expect(disallowedChanges(changes, { error })).toEqual(['auditlog:{default}: a refusal (invalid_authorization_details) audited refused (unknown_user_id)']);
  });

  it('reports an endpoint that takes a place in a velocity window', async () => {
    const key = keys.window('default', 'velocity-user', 'alice');
    const broken = brokenEndpoint(s, () => s.h.store.windowAdd(key, { nowMs: s.h.clock.now(), windowMs: 3_600_000, member: 'mischief', amounts: { EUR: 1 }, maxCount: 1000 }));
    const { error, changes } = await refuse(s, broken);
    const problems = disallowedChanges(changes, { error });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^a refused call changed ${escapeRegExp(key)}: \\{"kind":"window","value":\\{"count":1,"totals":\\{"EUR":49000\\}\\}\\} → \\{"kind":"window","value":\\{"count":2,"totals":\\{"EUR":49001\\}\\}\\}`));
    await s.h.store.windowRemove(key, 'mischief');
  });

  it("reports an endpoint that takes a place in the user's pending requests", async () => {
    const key = keys.pendingRequests('default', 'alice');
    const broken = brokenEndpoint(s, () => s.h.store.sortedWindowAdd(key, { nowMs: s.h.clock.now(), windowMs: 0, member: 'mischief', score: s.h.clock.now() + 60_000, maxCount: 1000 }));
    const { error, changes } = await refuse(s, broken);
    const problems = disallowedChanges(changes, { error });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`a refused call changed ${key}`);
    expect(problems[0]).toContain('"mischief"');
    await s.h.store.sortedRemove(key, 'mischief');
  });

  it("reports an endpoint that moves a request's deadline by a millisecond (a sorted set whose members stay the same)", async () => {
    const key = keys.deadlines();
    const member = `default:${s.pending}`;
    const deadline = Number((await s.h.store.hashGet(keys.request('default', s.pending)))?.expires_at);
    expect(deadline).toBeGreaterThan(s.h.clock.now());
    const broken = brokenEndpoint(s, () => s.h.store.sortedAdd(key, member, deadline + 1));
    const { error, changes } = await refuse(s, broken);
    const change = changes.find((c) => c.key === key);
    // The members read the same before and after; the score the write named is what tells them apart.
    expect(change?.before).toEqual({ kind: 'sorted', value: { members: [member], scored: { [`${member} ${deadline + 1}`]: false } } });
    expect(change?.after).toEqual({ kind: 'sorted', value: { members: [member], scored: { [`${member} ${deadline + 1}`]: true } } });
    expect(disallowedChanges(changes, { error })).toHaveLength(1);
    await s.h.store.sortedAdd(key, member, deadline);
  });

  it('reports an endpoint that appends a stream entry, even when it deletes it again', async () => {
    const key = keys.jobs();
    const broken = brokenEndpoint(s, async () => {
      const id = await s.h.store.streamAppend(key, { kind: 'mischief' });
      await s.h.store.streamAck(key, 'mischief', [id]);
    });
    const { error, changes } = await refuse(s, broken);
    const problems = disallowedChanges(changes, { error });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^a refused call changed jobs:\{queue\}: null → null \(appended \d+-\d+\)$/);
  });

  it('fails a key it cannot read, instead of passing it', async () => {
    const unreadable = new Proxy(s.h.store, {
      get(store, name, receiver) {
        const value = Reflect.get(store, name, receiver);
        return typeof value === 'function' ? () => Promise.reject(new Error('WRONGTYPE Operation against a key holding the wrong kind of value')) : value;
      },
    });
    const state = await readKey(unreadable, 'mystery', 'string');
    expect(state).toMatchObject({ kind: 'unreadable' });
    expect(disallowedChanges([{ key: 'mystery', before: null, after: state, appended: [] }], { error: 'invalid_request' })).toEqual([expect.stringMatching(/^mystery cannot be read, so its change cannot be checked/)]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
