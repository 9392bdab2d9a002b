import { keys } from '@countersign/server';
import { base64url, decisionChallenge } from '@countersign/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { drawBindingCodes } from '../../server/src/policy/index.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { recordWrites } from '../support/store-watch.ts';
import { answer, bcAuthorize, device, enrollWithRoles, pay, pollToken, testPolicy, watchAudit, type SeenEvent } from './policy-support.ts';

type Client = { client_id: string; client_secret: string };

describe('drawing number-matching codes', () => {
  it('draws two-digit codes 10–99, the right one and two different decoys, shuffled with the injected randomness', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const { binding_code, candidates } = drawBindingCodes(() => base64url(crypto.getRandomValues(new Uint8Array(16))));
      expect(binding_code).toMatch(/^[1-9][0-9]$/);
      expect(new Set(candidates).size).toBe(3);
      expect(candidates).toContain(binding_code);
      seen.add(candidates.indexOf(binding_code));
    }
    expect([...seen].sort()).toEqual([0, 1, 2]);
    // Bytes at or above 180 are thrown away (rejection sampling), so 0xff never biases a code.
    const fixed = drawBindingCodes(() => base64url(new Uint8Array([0xff, 5, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])));
    expect(fixed).toEqual({ binding_code: '15', candidates: ['16', '17', '15'] });
  });
});

/** Push fatigue (docs/guarantees.md): pending limit, push rate, number matching. */
describe.each(['memory', 'redis'] as const)('push fatigue (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];
  let pushes: string[];

  async function start(change: (policy: any) => void = () => {}, passkey: Parameters<Harness['enrollUser']>[1] = {}) {
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: testPolicy(change) } });
    customer = await harness.enrollUser('customer_1', passkey);
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
    pushes = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushes.push(input.auth_req_id);
      return notifyUser(input);
    };
  }
  afterEach(() => harness.close());

  const ask = (transactionId: string, amount = 49_000) => bcAuthorize(harness, client, { login_hint: customer.sub, details: pay(transactionId, amount) });
  const inbox = async () => ((await device(harness, customer, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);

  it('refuses a request over the pending limit with 429 too_many_pending before any push; a decided or expired one frees its place', async () => {
    await start((policy) => {
      policy.limits.max_pending_per_user = 2;
    });
    const first = (await ask('txn_1')).body.auth_req_id;
    const second = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2'), requested_expiry: 60 })).body.auth_req_id;
    const refused = await ask('txn_3');
    expect([refused.status, refused.body.error]).toEqual([429, 'too_many_pending']);
    await harness.deps.background.drain();
    expect(pushes).toEqual([first, second]);
    expect(audit.filter((event) => event.type === 'refused').map((event) => [event.reason, event.client_id])).toEqual([['too_many_pending', client.client_id]]);

    expect((await answer(harness, customer, first, { decision: 'deny' })).status).toBe(200);
    expect((await ask('txn_3')).status).toBe(200);
    expect((await ask('txn_4')).body.error).toBe('too_many_pending');
    harness.clock.advance(60);
    expect((await ask('txn_4')).status).toBe(200);
  });

  it('lists the pending requests as the inbox, and keeps a place taken for a request not written yet', async () => {
    await start((policy) => {
      policy.limits.max_pending_per_user = 2;
    });
    const first = (await ask('txn_1')).body.auth_req_id;
    // A place taken by a request that is being made right now: the limit is counted before the write.
    const pendingKey = keys.pendingRequests('default', customer.sub);
    const inFlight = 'in-flight-request-000000000';
    expect((await harness.store.sortedWindowAdd(pendingKey, { nowMs: harness.clock.now(), windowMs: 0, member: inFlight, score: harness.clock.now() + 300_000, maxCount: 2 })).ok).toBe(true);
    expect(await inbox()).toEqual([first]);
    expect(await harness.store.sortedWindowMembers(pendingKey, harness.clock.now(), 0)).toEqual([first, inFlight]);
    expect((await ask('txn_2')).body.error).toBe('too_many_pending');
  });

  it('skips a push over the user’s push rate and audits it, while the request stands and can be approved', async () => {
    await start((policy) => {
      policy.limits.pushes_per_user = { window_seconds: 600, max_count: 2 };
    });
    const ids = [];
    for (const id of ['txn_1', 'txn_2', 'txn_3']) ids.push((await ask(id)).body.auth_req_id as string);
    await harness.deps.background.drain();
    expect(pushes).toEqual(ids.slice(0, 2));
    expect(audit.find((event) => event.type === 'push_skipped')).toMatchObject({ auth_req_id: ids[2], sub: 'customer_1', reason: 'push_rate_limited', channel: 'push' });
    expect((await inbox()).sort()).toEqual([...ids].sort());
    expect((await answer(harness, customer, ids[2]!, { decision: 'approve' })).body.request.state).toBe('approved');
    harness.clock.advance(600);
    const later = (await ask('txn_4')).body.auth_req_id;
    await harness.deps.background.drain();
    expect(pushes.at(-1)).toBe(later);
  });

  describe('number matching', () => {
    const elevated = () => ask('txn_big', 250_000);

    it('gives the agent a two-digit binding_code and the device three candidates, never the code itself', async () => {
      await start();
      const asked = await elevated();
      expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
      const view = await device(harness, customer, 'GET', `/requests/${asked.body.auth_req_id}`);
      const { candidates } = view.body.request.number_matching;
      expect(new Set(candidates).size).toBe(3);
      expect(candidates).toContain(asked.body.binding_code);
      expect(view.body.request.tier).toBe('elevated');
      expect(JSON.stringify(view.body.request)).not.toContain('binding_code');
      expect(view.body.options.approve).toBeNull();
      expect(Object.keys(view.body.options.approve_by_code).sort()).toEqual([...candidates].sort());
      // A request without number matching offers no codes and the agent gets none.
      const plain = await ask('txn_small');
      expect(plain.body).not.toHaveProperty('binding_code');
      expect((await device(harness, customer, 'GET', `/requests/${plain.body.auth_req_id}`)).body.request.number_matching).toBeNull();
    });

    it('signs the picked code into the challenge only for number-matching approvals', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const hash = (await harness.admin('GET', `/requests/${id}`)).body.request.details_hash;
      const view = await device(harness, customer, 'GET', `/requests/${id}`);
      const signedBy = async (challenge: string) => JSON.parse((await harness.store.get(keys.decisionChallenge('default', challenge)))!);
      for (const [code, prompt] of Object.entries(view.body.options.approve_by_code as Record<string, { challenge: string }>)) {
        const { nonce } = await signedBy(prompt.challenge);
        expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: hash, decision: 'approve', nonce, selected_code: code }))).toBe(prompt.challenge);
      }
      const deny = view.body.options.deny.challenge;
      expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: hash, decision: 'deny', nonce: (await signedBy(deny)).nonce }))).toBe(deny);
      expect((await answer(harness, customer, id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('approved');
      expect((await pollToken(harness, client, id)).body.expires_in).toBe(300);
    });

    it('denies the request at the first wrong pick: no later pick approves it, the right code included, and no token is ever issued', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      // Every prompt the phone was offered, held on to: someone tapping each code in turn has them all.
      const view = await device(harness, customer, 'GET', `/requests/${id}`);
      const prompts = view.body.options.approve_by_code as Record<string, { challenge: string }>;
      const candidates = view.body.request.number_matching.candidates as string[];
      const decoys = candidates.filter((code) => code !== asked.body.binding_code);
      const pick = async (code: string) => device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await customer.authenticator.authenticate(prompts[code]!), selected_code: code });

      const wrong = await pick(decoys[0]!);
      expect([wrong.status, wrong.body.error, wrong.body.error_description]).toEqual([400, 'wrong_binding_code', 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.']);
      expect(wrong.body).not.toHaveProperty('attempts_left');
      expect((await harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('denied');
      for (const code of [decoys[1]!, asked.body.binding_code as string]) {
        const later = await pick(code);
        expect([code, later.status, later.body.error]).toEqual([code, 409, 'request_not_pending']);
      }
      // Opened again, it offers nothing to pick.
      const again = await device(harness, customer, 'GET', `/requests/${id}`);
      expect([again.body.request.state, again.body.request.number_matching, again.body.options]).toEqual(['denied', null, null]);

      expect((await pollToken(harness, client, id)).body.error).toBe('access_denied');
      harness.clock.advance(10);
      expect((await pollToken(harness, client, id)).body.error).toBe('access_denied');
      expect((await harness.admin('GET', `/requests/${id}`)).body.request).toMatchObject({ state: 'denied' });
      // The stored record itself (the admin view never shows `token_jti`): no token was bound to it.
      expect((await harness.store.hashGet(keys.request('default', id)))?.token_jti).toBeUndefined();
      const trail = (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
      expect(trail.filter((event) => ['refused', 'denied', 'party_approved', 'approved', 'token_issued'].includes(event.type)).map((event) => [event.type, event.reason ?? event.detail?.cause])).toEqual([
        ['refused', 'wrong_binding_code'],
        ['denied', 'wrong_binding_code'],
      ]);
      expect(trail.find((event) => event.type === 'denied')).toMatchObject({ sub: customer.sub, channel: 'device', detail: { party: 'customer', cause: 'wrong_binding_code' } });
      const history = (await device(harness, customer, 'GET', '/history')).body.entries as { auth_req_id: string; denial: string }[];
      expect(history.find((entry) => entry.auth_req_id === id)?.denial).toBe('wrong_binding_code');
    });

    it('makes the deny compare-and-swap the first write of a wrong pick once its passkey verified: nothing is audited before it', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const view = await device(harness, customer, 'GET', `/requests/${id}`);
      const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
      const prompt = view.body.options.approve_by_code[decoy] as { challenge: string };
      const response = await customer.authenticator.authenticate(prompt as never);
      const deviceId = (await device(harness, customer, 'GET', '/me')).body.device.device_id as string;
      await harness.drain();
      const watch = recordWrites(harness.store);
      let wrong;
      try {
        wrong = await device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, selected_code: decoy });
        await harness.deps.background.drain();
      } finally {
        watch.stop();
      }
      expect(wrong.body.error).toBe('wrong_binding_code');
      // Every decision counts against the session's changes, takes its challenge and saves the passkey's
      // counter; the very next write is the denial, after the outbox mark that makes its consequences durable.
      expect(watch.writes.slice(0, 5)).toEqual([
        `rateLimit ${keys.rate('deviceChanges', `default:${customer.sub}:${deviceId}`)}`,
        `take ${keys.decisionChallenge('default', prompt.challenge)}`,
        `replace ${keys.device('default', customer.sub, deviceId)}`,
        `sortedAdd ${keys.outboxDue()}`,
        `compareAndSet ${keys.request('default', id)}`,
      ]);
      const audited = watch.writes.findIndex((write) => write.startsWith('streamAppend'));
      expect(audited).toBeGreaterThan(4);
      const trail = (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
      expect(trail.filter((event) => event.type === 'refused' || event.type === 'denied').map((event) => [event.type, event.reason ?? event.detail?.cause])).toEqual([
        ['refused', 'wrong_binding_code'],
        ['denied', 'wrong_binding_code'],
      ]);
    });

    it('settles a wrong and a right pick sent together by whichever swap the store runs first', async () => {
      // A synced passkey (its counter stays 0): two answers signed one after the other would otherwise
      // race on the counter too, and the one saved first would make the other a counter regression.
      await start(undefined, { counter: 'fixed' });
      for (const first of ['wrong', 'right'] as const) {
        const asked = await ask(`txn_race_${first}`, 250_000);
        const id = asked.body.auth_req_id;
        const view = await device(harness, customer, 'GET', `/requests/${id}`);
        const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
        const prompts = view.body.options.approve_by_code;
        const [wrongAnswer, rightAnswer] = [await customer.authenticator.authenticate(prompts[decoy]), await customer.authenticator.authenticate(prompts[asked.body.binding_code])];
        // Hold the swap of the pick that is to land second until the other's swap has landed.
        const compareAndSet = harness.store.compareAndSet.bind(harness.store);
        let landed!: () => void;
        const firstLanded = new Promise<void>((resolve) => (landed = resolve));
        harness.store.compareAndSet = async (key, guards, set, options) => {
          const mine = set.state === 'denied' ? 'wrong' : 'right';
          if (key === keys.request('default', id) && mine !== first) await firstLanded;
          const result = await compareAndSet(key, guards, set, options);
          if (key === keys.request('default', id) && mine === first) landed();
          return result;
        };
        try {
          const [wrong, right] = await Promise.all([
            device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: wrongAnswer, selected_code: decoy }),
            device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: rightAnswer, selected_code: asked.body.binding_code }),
          ]);
          const state = (await harness.admin('GET', `/requests/${id}`)).body.request.state;
          const token = await pollToken(harness, client, id);
          if (first === 'wrong') {
            expect([wrong.body.error, right.body.error, state, token.body.error]).toEqual(['wrong_binding_code', 'request_not_pending', 'denied', 'access_denied']);
          } else {
            // The right code won; the wrong pick, refused all the same, finds the request settled.
            expect([wrong.body.error, right.body.request?.state, state, typeof token.body.access_token]).toEqual(['request_not_pending', 'approved', 'approved', 'string']);
            const trail = (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
            expect(trail.filter((event) => event.type === 'refused').map((event) => event.reason)).toEqual(['wrong_binding_code']);
          }
        } finally {
          harness.store.compareAndSet = compareAndSet;
        }
      }
    });

    it('denies for everyone at the customer’s wrong pick, also after a reviewer approved, and the request leaves the reviewer’s inbox', async () => {
      await start();
      const reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);
      // EUR 12,000.00: the shipped policy's `high` tier, the customer with number matching and a finance reviewer.
      const asked = await ask('txn_high', 1_200_000);
      const id = asked.body.auth_req_id;
      expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      const candidates = (await device(harness, customer, 'GET', `/requests/${id}`)).body.request.number_matching.candidates as string[];
      const decoy = candidates.find((code) => code !== asked.body.binding_code)!;
      expect((await answer(harness, customer, id, { decision: 'approve', code: decoy })).body.error).toBe('wrong_binding_code');
      expect((await harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('denied');
      expect((await answer(harness, customer, id, { decision: 'approve', code: asked.body.binding_code })).body.options).toBeNull();
      expect((await pollToken(harness, client, id)).body.error).toBe('access_denied');
      expect(((await device(harness, reviewer, 'GET', '/requests')).body.requests as unknown[]).length).toBe(0);
    });

    it('refuses a decoy’s prompt sent as the right code, without counting it as a pick', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const view = await device(harness, customer, 'GET', `/requests/${id}`);
      const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
      const response = await customer.authenticator.authenticate(view.body.options.approve_by_code[decoy]);
      const passedOff = await device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, selected_code: asked.body.binding_code });
      expect([passedOff.status, passedOff.body.error]).toEqual([400, 'invalid_assertion']);
      const plainApprove = await device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await customer.authenticator.authenticate(view.body.options.deny) });
      expect(plainApprove.body.error).toBe('invalid_assertion');
      // A prompt that does not match is no pick: nothing is denied, and the right code still approves.
      expect((await harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('pending');
      expect(audit.filter((event) => event.type === 'denied')).toEqual([]);
      expect((await answer(harness, customer, id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('approved');
    });
  });
});
