import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import { contentType, formBody, formMutation } from '../support/mutations.ts';
import { authorization, checked, fuzz, RUNS, who } from './support/checked.ts';
import { approved, CIBA, FORM, fuzzWorlds, headers, knownIds } from './support/world.ts';

/**
 * Fuzzed `POST /token`: mutated forms polling pending, approved, denied and other clients' requests.
 * Properties, seed and runs: `support/checked.ts`.
 */

describe.each(['memory', 'redis'] as const)('fuzzed requests (%s store)', (storeKind) => {
  const runs = RUNS[storeKind];
  const world = fuzzWorlds(storeKind);

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
});
