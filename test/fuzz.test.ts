import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { testPolicy } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { basic, LEAK, OAUTH_DESCRIPTION, send, type Answer, type Credentials, type Raw } from './support/raw-request.ts';
import { contentType, formBody, formMutation, jsonChanges, mutatedJson, type FormMutation, type JsonChanges } from './support/mutations.ts';
import { disallowedChanges } from './support/allowed-changes.ts';
import { watchStore, type Change, type StoreWatch } from './support/store-watch.ts';

/**
 * A bounded, seeded fuzz test of the four endpoints an attacker reaches first: `/bc-authorize`,
 * `/token`, `/redeem` and the device decision. Each input is a valid request mutated by fast-check:
 * fields dropped, repeated, renamed, retyped or added; huge, odd and Unicode strings; numbers at the
 * edges of JSON and of safe integers; JSON that does not parse; other content types; other
 * clients' credentials and other people's ids. Whatever comes in:
 *
 * - the answer is never a 5xx;
 * - a 4xx carries an OAuth error body `{error, error_description}` (RFC 6749 §5.2), with nothing
 *   of the server's insides in it;
 * - a 4xx changes nothing but what `support/allowed-changes.ts` allows a refusal (its `refused`
 *   audit event; a decision challenge it spent; its rate-limit counter), and, for a poll of a pending request, its poll
 *   rate (CIBA Core §7.3: `interval`, `next_poll_at`), watched as in the bad-input suite.
 *
 * The seed is fixed and the runs bounded (1,750 inputs on the memory store, 650 on Redis, where
 * each is slower), so a run is repeatable and fits CI; a failure names the input and the answer,
 * and fast-check's seed and path to replay it.
 */

const SEED = 20_261_201;
const RUNS = { memory: { bcAuthorize: 600, token: 400, redeem: 400, decision: 350 }, redis: { bcAuthorize: 150, token: 100, redeem: 300, decision: 100 } } as const;

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const CIBA = 'urn:openid:params:grant-type:ciba';

type Who = 'a' | 'b' | 'c' | 'wrong' | 'none' | 'garbage' | 'bearer' | 'mixed';

/** Client A mostly; now and then another client, a wrong secret, none, or garbage. */
const who: fc.Arbitrary<Who> = fc.oneof({ weight: 12, arbitrary: fc.constant('a' as const) }, { weight: 1, arbitrary: fc.constantFrom<Who>('b', 'c', 'wrong', 'none', 'garbage', 'bearer', 'mixed') });

function authorization(w: World, as: Who): string | undefined {
  switch (as) {
    case 'a':
      return basic(w.a);
    case 'b':
      return basic(w.b);
    case 'c':
      return basic(w.c);
    case 'wrong':
      return basic({ ...w.a, client_secret: `${w.a.client_secret}x` });
    case 'none':
      return undefined;
    case 'garbage':
      return 'Basic !!!';
    case 'bearer':
      return `Bearer ${w.approvedToken}`;
    case 'mixed':
      return basic({ client_id: w.a.client_id, client_secret: w.b.client_secret });
  }
}

function headers(type: string | undefined, auth: string | undefined, more: Record<string, string> = {}): Record<string, string> {
  return { ...(type === undefined ? {} : { 'content-type': type }), ...(auth === undefined ? {} : { authorization: auth }), ...more };
}

// ---------------------------------------------------------------------------------------------
// The world, and one checked call.
// ---------------------------------------------------------------------------------------------

interface World {
  h: Harness;
  watch: StoreWatch;
  alice: EnrolledUser;
  bob: EnrolledUser;
  users: Map<string, EnrolledUser>;
  a: Credentials;
  b: Credentials;
  /** A client of another tenant. */
  c: Credentials;
  /** Alice's pending request from client A (renewed when a fuzzed decision settles it). */
  pending: string;
  /** Bob's pending request from client A. */
  pendingBob: string;
  /** Alice's pending request from client B. */
  pendingOfB: string;
  /** An approved request of client A, its transaction and its approval token (renewed once redeemed). */
  approved: string;
  approvedTxn: string;
  approvedToken: string;
  /** A denied request of client A. */
  denied: string;
}

let transactions = 0;
function txn(): string {
  transactions += 1;
  return `txn_fuzz_${transactions}`;
}

const details = (transactionId: string) => payment({ transaction_id: transactionId, amount_minor: 4900 });

async function ask(w: Pick<World, 'h'>, client: Credentials, sub: string, transactionId = txn()): Promise<string> {
  const form = new URLSearchParams({ scope: 'openid', login_hint: sub, binding_message: 'Refund 1042', authorization_details: JSON.stringify(details(transactionId)) });
  const answer = await send(w.h, { method: 'POST', path: '/bc-authorize', headers: headers(FORM, basic(client)), body: form.toString() });
  if (answer.status !== 200) throw new Error(`bc-authorize failed: ${answer.text}`);
  return answer.body.auth_req_id as string;
}

/** A request of client A that alice approved, whose token is not collected yet. */
async function approved(w: Pick<World, 'h' | 'alice' | 'a'>): Promise<{ id: string; txn: string }> {
  const transactionId = txn();
  const id = await ask(w, w.a, 'alice', transactionId);
  expect((await w.h.decide(w.alice, id, 'approve')).status).toBe(200);
  return { id, txn: transactionId };
}

/** An approved request of client A and its approval token. */
async function approve(w: Pick<World, 'h' | 'alice' | 'a'>): Promise<{ id: string; txn: string; token: string }> {
  const { id, txn: transactionId } = await approved(w);
  w.h.clock.advance(10);
  const polled = await send(w.h, { method: 'POST', path: '/token', headers: headers(FORM, basic(w.a)), body: new URLSearchParams({ grant_type: CIBA, auth_req_id: id }).toString() });
  if (polled.status !== 200) throw new Error(`token failed: ${polled.text}`);
  return { id, txn: transactionId, token: polled.body.access_token as string };
}

async function setUpWorld(storeKind: 'memory' | 'redis', policy?: string): Promise<World> {
  // A session's allowance of changes is raised, so the fuzzed decisions reach the decision itself (test/rate-limits/per-session.test.ts tests the limit).
  const h = await createHarness({ store: storeKind, env: { RATE_LIMIT_DEVICE_CHANGES: '1000000/1', ...(policy ? { POLICY_FILE: policy } : {}) } });
  const alice = await h.enrollUser('alice');
  const bob = await h.enrollUser('bob');
  const a = await h.createClient('Agent A');
  const b = await h.createClient('Agent B');
  const acme = await h.admin('POST', '/clients', { name: 'Agent C', tenant: 'acme' });
  const c = { client_id: acme.body.client_id as string, client_secret: acme.body.client_secret as string };
  await h.admin('POST', '/users', { sub: 'alice', tenant: 'acme' });
  const base = { h, alice, a };
  const pending = await ask(base, a, 'alice');
  const pendingBob = await ask(base, a, 'bob');
  const pendingOfB = await ask(base, b, 'alice');
  const denied = await ask(base, a, 'alice');
  expect((await h.decide(alice, denied, 'deny')).status).toBe(200);
  const collected = await approve(base);
  await h.deps.background.drain();
  return {
    h,
    watch: watchStore(h.store),
    alice,
    bob,
    users: new Map([
      ['alice', alice],
      ['bob', bob],
    ]),
    a,
    b,
    c,
    pending,
    pendingBob,
    pendingOfB,
    approved: collected.id,
    approvedTxn: collected.txn,
    approvedToken: collected.token,
    denied,
  };
}

/** Ids of the world an attacker may know or guess: other clients', other people's, other tenants'. */
function knownIds(w: () => World): fc.Arbitrary<string> {
  return fc.constantFrom('pending', 'pendingBob', 'pendingOfB', 'approved', 'denied', 'approvedToken', 'clientA', 'clientB', 'clientC', 'unknown').map((name) => {
    const world = w();
    const values: Record<string, string> = {
      pending: world.pending,
      pendingBob: world.pendingBob,
      pendingOfB: world.pendingOfB,
      approved: world.approved,
      denied: world.denied,
      approvedToken: world.approvedToken,
      clientA: world.a.client_id,
      clientB: world.b.client_id,
      clientC: world.c.client_id,
      unknown: 'u'.repeat(27),
    };
    return values[name]!;
  });
}

/** A poll of a pending request may move its poll rate, and nothing else of it (CIBA Core §7.3). */
function pollRateOnly(change: Change): boolean {
  if (!/^req:\{/.test(change.key) || change.before?.kind !== 'hash' || change.after?.kind !== 'hash') return false;
  const [was, now] = [change.before.value, change.after.value];
  const names = new Set([...Object.keys(was), ...Object.keys(now)]);
  return [...names].every((name) => name === 'interval' || name === 'next_poll_at' || was[name] === now[name]);
}

/** Sends one fuzzed request while the store is watched, and checks the three properties; answers the answer and what changed. */
async function checked(w: World, raw: Raw, consumes?: RegExp): Promise<Answer & { changes: Change[] }> {
  await w.h.deps.background.drain();
  w.watch.begin();
  let answer: Answer;
  let changes: Change[] = [];
  try {
    answer = await send(w.h, raw);
    await w.h.deps.background.drain();
  } finally {
    changes = await w.watch.end();
  }
  const shown = `${raw.method} ${raw.path.slice(0, 200)} ${JSON.stringify(raw.headers)} ${(raw.body ?? '').slice(0, 600)}\n→ ${answer.status} ${answer.text.slice(0, 600)}`;
  if (answer.status >= 500) throw new Error(`a server error:\n${shown}`);
  if (answer.status < 400) return { ...answer, changes };
  const body = answer.body as { error?: unknown; error_description?: unknown } | null;
  if (typeof body?.error !== 'string' || typeof body.error_description !== 'string') throw new Error(`a refusal without an OAuth error body:\n${shown}`);
  if (!(answer.headers.get('content-type') ?? '').startsWith('application/json')) throw new Error(`a refusal that is not JSON:\n${shown}`);
  if (!OAUTH_DESCRIPTION.test(body.error_description)) throw new Error(`an error_description outside RFC 6749 §5.2, or echoing the input at length:\n${shown}`);
  if (LEAK.test(answer.text)) throw new Error(`a refusal that shows the server's insides:\n${shown}`);
  const polled = body.error === 'authorization_pending' || body.error === 'slow_down';
  const problems = disallowedChanges(polled ? changes.filter((change) => !pollRateOnly(change)) : changes, { error: body.error, ...(consumes ? { consumes } : {}) });
  if (problems.length > 0) throw new Error(`a refusal changed the store:\n${problems.join('\n')}\n${shown}`);
  return { ...answer, changes };
}

/** Runs a property with the fixed seed, stopping at the first failure (the world is shared, so shrinking would replay on another state). */
async function fuzz<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, run: (input: T) => Promise<void>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      await run(input);
    }),
    { seed: SEED, numRuns, endOnFailure: true },
  );
}

// ---------------------------------------------------------------------------------------------
// The properties, on both stores.
// ---------------------------------------------------------------------------------------------

describe.each(['memory', 'redis'] as const)('fuzzed requests (%s store)', (storeKind) => {
  const runs = RUNS[storeKind];
  const worlds: World[] = [];
  /** A world of its own for each endpoint, so one property's leftovers (spent limits, settled requests) do not steer another's. */
  async function world(policy?: string): Promise<World> {
    const w = await setUpWorld(storeKind, policy);
    worlds.push(w);
    return w;
  }
  afterAll(async () => {
    for (const w of worlds) await w.h.close();
  });

  it('POST /bc-authorize: no 5xx, an OAuth error on 4xx, and a refusal changes nothing', async () => {
    // Small limits, so the pending limit and the velocity windows (count and amount) refuse often:
    // each such refusal takes its places first and must give every one of them back.
    const w = await world(
      testPolicy((policy) => {
        policy.limits.max_pending_per_user = 3;
        policy.limits.velocity.per_user = { window_seconds: 3600, max_count: 8, max_amount_minor: { EUR: 30_000 } };
      }),
    );
    const input = fc.record({
      // The valid request varies too (its amount and currency), so accepted ones fill the windows unevenly.
      sub: fc.constantFrom('alice', 'bob'),
      amount: fc.integer({ min: 1, max: 20_000 }),
      currency: fc.constantFrom('EUR', 'EUR', 'USD'),
      form: fc.oneof({ weight: 3, arbitrary: fc.constant<FormMutation[]>([]) }, { weight: 1, arbitrary: fc.array(formMutation(knownIds(() => w)), { minLength: 1, maxLength: 2 }) }),
      details: fc.oneof({ weight: 1, arbitrary: fc.constant<JsonChanges>({ tree: [], text: null }) }, { weight: 3, arbitrary: jsonChanges(knownIds(() => w)) }),
      type: contentType(FORM),
      as: who,
    });
    const open: string[] = [];
    /** Denies what the inputs created, so the users' pending places are free again. */
    const settleOpen = async () => {
      for (const id of open.splice(0)) await settle(w, id);
    };
    const seen = new Set<string>();
    await fuzz(input, runs.bcAuthorize, async ({ sub, amount, currency, form, details: changes, type, as }) => {
      const pairs: [string, string][] = [
        ['scope', 'openid'],
        ['login_hint', sub],
        ['binding_message', 'Refund 1042'],
        ['authorization_details', mutatedJson(payment({ transaction_id: txn(), amount_minor: amount, currency }), changes)],
      ];
      const answer = await checked(w, { method: 'POST', path: '/bc-authorize', headers: headers(type, authorization(w, as)), body: formBody(pairs, form) });
      seen.add(answer.status === 200 ? 'accepted' : answer.body.error);
      if (answer.status === 200) open.push(answer.body.auth_req_id);
      if (answer.body?.error === 'too_many_pending') await settleOpen();
      if (answer.body?.error === 'velocity_exceeded') {
        // An hour later the windows are empty again; one accepted request per user and client
        // drops what left them now, so no refusal later is seen dropping it.
        w.h.clock.advance(3601);
        open.length = 0;
        for (const client of [w.a, w.b]) for (const user of ['alice', 'bob']) await settle(w, await ask(w, client, user));
      }
    });
    // The baseline is valid, and the limits were reached: the inputs went past parsing.
    expect([...seen]).toEqual(expect.arrayContaining(['accepted', 'too_many_pending', 'velocity_exceeded', 'invalid_authorization_details', 'invalid_request']));
  });

  it('POST /token: no 5xx, an OAuth error on 4xx, and a refusal changes nothing but a poll rate', async () => {
    const w = await world(testPolicy());
    // An approval whose token is still to be collected (the world's own was collected).
    w.approved = (await approved(w)).id;
    const input = fc.record({
      target: fc.constantFrom('pending', 'approved', 'denied', 'pendingOfB', 'pendingBob'),
      form: fc.array(formMutation(knownIds(() => w)), { maxLength: 3 }),
      type: contentType(FORM),
      as: who,
    });
    const seen = new Set<string>();
    await fuzz(input, runs.token, async ({ target, form, type, as }) => {
      const authReqId = { pending: w.pending, approved: w.approved, denied: w.denied, pendingOfB: w.pendingOfB, pendingBob: w.pendingBob }[target];
      const pairs: [string, string][] = [
        ['grant_type', CIBA],
        ['auth_req_id', authReqId],
      ];
      const answer = await checked(w, { method: 'POST', path: '/token', headers: headers(type, authorization(w, as)), body: formBody(pairs, form) });
      seen.add(answer.status === 200 ? 'issued' : answer.body.error);
      // Collected: another approval waiting to be, so that later inputs reach the token issue again.
      if (answer.status === 200) w.approved = (await approved(w)).id;
    });
    expect([...seen]).toEqual(expect.arrayContaining(['issued', 'authorization_pending', 'slow_down', 'access_denied', 'invalid_grant', 'invalid_client']));
  });

  it('POST /redeem: no 5xx, an OAuth error on 4xx, and a refusal changes nothing', async () => {
    const w = await world(testPolicy());
    const input = fc.record({ body: jsonChanges(knownIds(() => w)), type: contentType(JSON_TYPE), as: who });
    const seen = new Set<string>();
    await fuzz(input, runs.redeem, async ({ body, type, as }) => {
      const valid = { token: w.approvedToken, authorization_details: details(w.approvedTxn) };
      const answer = await checked(w, { method: 'POST', path: '/redeem', headers: headers(type, authorization(w, as)), body: mutatedJson(valid, body) });
      seen.add(answer.status === 200 ? 'redeemed' : answer.body.error);
      if (answer.status === 200) {
        // Redeemed once: a new approval, so that later inputs reach past `already_redeemed`.
        const next = await approve(w);
        [w.approved, w.approvedTxn, w.approvedToken] = [next.id, next.txn, next.token];
      }
    });
    expect([...seen]).toEqual(expect.arrayContaining(['redeemed', 'approval_mismatch', 'invalid_token', 'invalid_request']));
  });

  it('POST /api/device/requests/{id}/decision: no 5xx, an OAuth error on 4xx, and a refusal changes nothing but the challenge it spent', async () => {
    const w = await world(testPolicy());
    const input = fc.record({
      decision: fc.constantFrom('approve', 'deny') as fc.Arbitrary<'approve' | 'deny'>,
      body: jsonChanges(knownIds(() => w)),
      path: fc.oneof({ weight: 10, arbitrary: fc.constant('own' as const) }, { weight: 1, arbitrary: fc.constantFrom('bob' as const, 'ofB' as const, 'unknown' as const, 'braces' as const, 'huge' as const) }),
      session: fc.oneof({ weight: 10, arbitrary: fc.constant('alice' as const) }, { weight: 1, arbitrary: fc.constantFrom('bob' as const, 'none' as const, 'garbage' as const) }),
      origin: fc.oneof({ weight: 10, arbitrary: fc.constant('own' as const) }, { weight: 1, arbitrary: fc.constantFrom('none' as const, 'evil' as const, 'null' as const) }),
      type: contentType(JSON_TYPE),
    });
    const seen = new Set<string>();
    /** The prompts of alice's pending request, asked again only once one was spent (each view mints new ones). */
    let prompts: Record<'approve' | 'deny', unknown> | null = null;
    await fuzz(input, runs.decision, async ({ decision, body, path, session, origin, type }) => {
      prompts ??= (await w.h.call('GET', `/api/device/requests/${w.pending}`, { headers: { cookie: w.alice.cookie } })).body.options as Record<'approve' | 'deny', unknown>;
      const assertion = await w.alice.authenticator.authenticate(prompts[decision] as Parameters<EnrolledUser['authenticator']['authenticate']>[0]);
      const id = { own: w.pending, bob: w.pendingBob, ofB: w.pendingOfB, unknown: 'u'.repeat(27), braces: `${w.pending}}:{x`, huge: 'u'.repeat(10_240) }[path];
      const cookie = { alice: w.alice.cookie, bob: w.bob.cookie, none: undefined, garbage: 'cs_device=}{' }[session];
      const originHeader = { own: w.h.issuer, none: undefined, evil: 'https://evil.example', null: 'null' }[origin];
      const more: Record<string, string> = { ...(cookie ? { cookie } : {}), ...(originHeader ? { origin: originHeader } : {}) };
      const raw: Raw = { method: 'POST', path: `/api/device/requests/${encodeURIComponent(id)}/decision`, headers: headers(type, undefined, more), body: mutatedJson({ decision, response: assertion }, body) };
      const answer = await checked(w, raw, /^chl:\{/);
      seen.add(answer.status === 200 ? 'decided' : answer.body.error);
      if (answer.changes.some((change) => change.key.startsWith('chl:'))) prompts = null;
      // Settled: a new pending request for the next inputs.
      if (answer.status === 200) [w.pending, prompts] = [await ask(w, w.a, 'alice'), null];
    });
    expect([...seen]).toEqual(expect.arrayContaining(['decided', 'invalid_assertion', 'invalid_request', 'login_required', 'invalid_origin']));
  });
});

/** Denies a pending request a fuzzed input created, with its user's passkey (outside any watch). */
async function settle(w: World, authReqId: string): Promise<void> {
  const view = await w.h.admin('GET', `/requests/${authReqId}`);
  const user = w.users.get(view.body.request?.sub);
  if (user && view.body.request.state === 'pending') expect((await w.h.decide(user, authReqId, 'deny')).status).toBe(200);
}
