import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { testPrefix } from './support/redis.ts';
import { storeKeys } from './support/store-keys.ts';

/**
 * Refusals and views cannot grow storage without bound (docs/security.md): viewing a request again
 * shows the device the decision challenges it was shown before while they live, instead of storing
 * a new one per prompt and view; and audits `viewed` once per device. Each challenge still has its
 * own fresh nonce and is used up by the first verification attempt (docs/design.md guarantee 4).
 */
describe.each(['memory', 'redis'] as const)('repeated views of one request (%s store)', (storeKind) => {
  let harness: Harness;
  let agent: AgentClient;
  let prefix: string;

  beforeEach(async () => {
    prefix = testPrefix();
    harness = await createHarness({ store: storeKind, redisPrefix: prefix });
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: harness.issuer } });
  const view = async (user: EnrolledUser, id: string) => {
    const answer = await device(user, 'GET', `/requests/${id}`);
    expect(answer.status).toBe(200);
    return answer.body.options as { approve: { challenge: string }; deny: { challenge: string } };
  };
  const decide = (user: EnrolledUser, id: string, decision: 'approve' | 'deny', response: unknown) => device(user, 'POST', `/requests/${id}/decision`, { decision, response });
  const ask = async (user: EnrolledUser) => (await agent.requestApproval({ login_hint: user.sub, authorization_details: payment() })).auth_req_id;
  const keysLike = async (pattern: RegExp) => (await storeKeys(harness.store, prefix)).filter((key) => pattern.test(key));
  const viewedEvents = async (id: string) => ((await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; device_id?: string }[]).filter((event) => event.type === 'viewed');
  const CHALLENGE_KEYS = /^chl:\{default\}:/;

  it('100 views of one request leave one challenge per prompt and one viewed event', async () => {
    const alice = await harness.enrollUser('alice');
    const id = await ask(alice);
    const first = await view(alice, id);
    for (let i = 1; i < 100; i++) {
      const again = await view(alice, id);
      expect([again.approve.challenge, again.deny.challenge]).toEqual([first.approve.challenge, first.deny.challenge]);
    }
    expect((await keysLike(CHALLENGE_KEYS)).sort()).toEqual([`chl:{default}:${first.approve.challenge}`, `chl:{default}:${first.deny.challenge}`].sort());
    expect(await keysLike(/^prompts:/)).toHaveLength(1);
    expect(await viewedEvents(id)).toHaveLength(1);
  });

  it('concurrent views of one device end with one live set', async () => {
    const alice = await harness.enrollUser('alice');
    const id = await ask(alice);
    const views = await Promise.all(Array.from({ length: 20 }, () => view(alice, id)));
    const sets = new Set(views.map((options) => `${options.approve.challenge} ${options.deny.challenge}`));
    expect(sets.size).toBe(1);
    expect(await keysLike(CHALLENGE_KEYS)).toHaveLength(2);
    expect(await viewedEvents(id)).toHaveLength(1);
  });

  it('the options of a repeated view verify, once', async () => {
    const alice = await harness.enrollUser('alice');
    const id = await ask(alice);
    const first = await view(alice, id);
    const again = await view(alice, id);
    expect(again.approve.challenge).toBe(first.approve.challenge);
    const assertion = await alice.authenticator.authenticate(again.approve);
    expect((await decide(alice, id, 'approve', assertion)).status).toBe(200);
    const replay = await decide(alice, id, 'approve', assertion);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_assertion']);
    expect((await agent.getRequest(id)).state).toBe('approved');
    expect(await keysLike(CHALLENGE_KEYS)).toEqual([`chl:{default}:${first.deny.challenge}`]);
  });

  it('after a failed attempt the next view mints a new challenge for that prompt only, and the old one stays spent', async () => {
    const alice = await harness.enrollUser('alice');
    const id = await ask(alice);
    const first = await view(alice, id);
    const withoutUv = await alice.authenticator.authenticate(first.approve, { userVerified: false });
    expect((await decide(alice, id, 'approve', withoutUv)).body.error).toBe('invalid_assertion');

    const next = await view(alice, id);
    expect(next.approve.challenge).not.toBe(first.approve.challenge);
    expect(next.deny.challenge).toBe(first.deny.challenge);
    const old = await decide(alice, id, 'approve', await alice.authenticator.authenticate(first.approve));
    expect([old.status, old.body.error]).toEqual([400, 'invalid_assertion']);
    expect((await agent.getRequest(id)).state).toBe('pending');
    // The spent prompt took nothing live: the next view still shows the new challenge, and it verifies.
    const third = await view(alice, id);
    expect(third.approve.challenge).toBe(next.approve.challenge);
    expect((await decide(alice, id, 'approve', await alice.authenticator.authenticate(third.approve))).status).toBe(200);
    expect(await viewedEvents(id)).toHaveLength(1);
  });

  it('gives each device of a person its own set, and audits one view per device', async () => {
    const phone = await harness.enrollUser('alice');
    const tablet = await harness.enrollUser('alice');
    const id = await ask(phone);
    const onPhone = await view(phone, id);
    const onTablet = await view(tablet, id);
    for (let i = 0; i < 10; i++) {
      expect((await view(phone, id)).approve.challenge).toBe(onPhone.approve.challenge);
      expect((await view(tablet, id)).approve.challenge).toBe(onTablet.approve.challenge);
    }
    expect(onTablet.approve.challenge).not.toBe(onPhone.approve.challenge);
    expect(await keysLike(CHALLENGE_KEYS)).toHaveLength(4);
    const viewed = await viewedEvents(id);
    expect(viewed).toHaveLength(2);
    expect(new Set(viewed.map((event) => event.device_id)).size).toBe(2);
  });
});
