import { describe, expect, it } from 'vitest';
import type { EnrolledUser } from '../support/harness.ts';
import { type Attack, EVIL, b64url, device } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { type World, FORM } from './support/world.ts';

/**
 * Bad input on `POST /api/device/requests/{id}/decision`: sessions, Origins, bodies, garbage and
 * mis-signed assertions, and decisions on other users' requests.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, every request of the world is in the state it was in.
 */

/** Alice's own, valid, signed approval of her pending request, taken from the real device API. */
async function aliceAssertion(w: World, decision: 'approve' | 'deny' = 'approve', overrides: Parameters<EnrolledUser['authenticator']['authenticate']>[1] = {}) {
  const view = await w.h.call('GET', `/api/device/requests/${w.pendingA}`, { headers: { cookie: w.alice.cookie } });
  return w.alice.authenticator.authenticate(view.body.options[decision], overrides);
}

/** Bob's own, valid, signed approval of his own pending request. */
async function bobAssertion(w: World) {
  const view = await w.h.call('GET', `/api/device/requests/${w.pendingBob}`, { headers: { cookie: w.bob.cookie } });
  return w.bob.authenticator.authenticate(view.body.options.approve);
}

const decisionPath = (w: World) => `/requests/${w.pendingA}/decision`;
const CHALLENGES = /^chl:\{/;
/** A clientDataJSON naming a well-formed challenge that the server never issued. */
const unissuedChallenge = () => b64url(JSON.stringify({ type: 'webauthn.get', challenge: 'c'.repeat(43), origin: 'http://localhost:8080' }));

const decisionAttacks: Attack[] = [
  { name: 'no session', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} } })), status: 401, error: 'login_required' },
  { name: 'a session but no Origin', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.alice, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'a session from another Origin', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.alice, origin: EVIL })), status: 403, error: 'invalid_origin' },
  { name: 'a form body', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: 'decision=approve', as: w.alice, type: FORM })), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: '{"decision":"approve",', as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a JSON array', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: [{ decision: 'approve', response: {} }], as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'an unknown decision', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'maybe', response: await aliceAssertion(w) }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w), amount_minor: 1 }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (a string)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: 'garbage' }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (an array)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: [1, 2, 3] }, as: w.alice })), status: 400, error: 'invalid_request' },
  { name: 'a garbage response (an empty object)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a garbage response (clientDataJSON not base64url)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { id: 'x', response: { clientDataJSON: '!!!', authenticatorData: 7 } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a garbage response (clientDataJSON not JSON)', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { response: { clientDataJSON: b64url('{{{') } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a challenge the server never issued', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { id: w.alice.authenticator.credentialId, response: { clientDataJSON: unissuedChallenge() } } }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  {
    name: 'an approve assertion sent as deny (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'deny', response: await aliceAssertion(w, 'approve') }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion without user verification (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w, 'approve', { userVerified: false }) }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion from another origin (the challenge is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w, 'approve', { origin: EVIL }) }, as: w.alice })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: 'an assertion with its signature cut (the challenge is spent, by design)',
    request: device(async (w) => {
      const assertion = await aliceAssertion(w);
      return { method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { ...assertion, response: { ...assertion.response, signature: assertion.response.signature.slice(0, 20) } } }, as: w.alice };
    }),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  { name: "a decision for another user's request, with garbage", request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: {} }, as: w.bob })), status: 400, error: 'invalid_assertion' },
  {
    name: "a decision for another user's request, signed over one's own request (the challenge is spent, by design)",
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await bobAssertion(w) }, as: w.bob })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  {
    name: "a decision for another user's request, with that user's own assertion replayed (the challenge is spent, by design)",
    request: device(async (w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: await aliceAssertion(w) }, as: w.bob })),
    status: 400,
    error: 'invalid_assertion',
    consumes: CHALLENGES,
  },
  { name: 'a decision for an unknown request', request: device((w) => ({ method: 'POST', path: `/requests/${'u'.repeat(43)}/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: ['invalid_assertion', 'not_found'] },
  { name: 'a decision for a request id of 10 KB', request: device((w) => ({ method: 'POST', path: `/requests/${'u'.repeat(10_240)}/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a decision for a request id with braces (a key injection)', request: device((w) => ({ method: 'POST', path: `/requests/${w.pendingA}%7D%3Ax/decision`, body: { decision: 'approve', response: {} }, as: w.alice })), status: 400, error: 'invalid_assertion' },
  { name: 'a body over 64 KB', request: device((w) => ({ method: 'POST', path: decisionPath(w), body: { decision: 'approve', response: { pad: 'x'.repeat(70_000) } }, as: w.alice })), status: 413, error: 'request_too_large' },
];

const TABLES: [string, Attack[]][] = [['POST /api/device/requests/{id}/decision', decisionAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;

    it('still holds every request in the state it was in, with no audit event but refusals', async () => {
      const expected: [string, string][] = [
        [w.pendingA, 'pending'],
        [w.pendingBob, 'pending'],
        [w.approvedA, 'approved'],
        [w.redeemedA, 'redeemed'],
      ];
      for (const [id, state] of expected) {
        const view = await w.h.admin('GET', `/requests/${id}`);
        expect(view.body.request.state).toBe(state);
        const audit = await w.h.admin('GET', `/audit?auth_req_id=${id}`);
        const types = new Set(audit.body.events.map((event: { type: string }) => event.type));
        expect([...types].filter((type) => !['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'refused'].includes(type as string))).toEqual([]);
      }
      expect((await w.h.admin('GET', `/requests/${w.redeemedA}`)).body.request.outcome).toEqual({ status: 'unknown' });
    });
  });
});
