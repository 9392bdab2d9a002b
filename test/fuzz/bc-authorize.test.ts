import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import { payment } from '../support/payment.ts';
import { contentType, formBody, formMutation, jsonChanges, mutatedJson, type FormMutation, type JsonChanges } from '../support/mutations.ts';
import { authorization, checked, fuzz, RUNS, who } from './support/checked.ts';
import { ask, FORM, fuzzWorlds, headers, knownIds, settle, txn } from './support/world.ts';

/**
 * Fuzzed `POST /bc-authorize`: mutated forms and `authorization_details`, under small limits, so the
 * pending limit and the velocity windows refuse often too. Properties, seed and runs: `support/checked.ts`.
 */

describe.each(['memory', 'redis'] as const)('fuzzed requests (%s store)', (storeKind) => {
  const runs = RUNS[storeKind];
  const world = fuzzWorlds(storeKind);

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
});
