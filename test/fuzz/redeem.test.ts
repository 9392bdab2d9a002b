import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import { contentType, jsonChanges, mutatedJson } from '../support/mutations.ts';
import { authorization, checked, fuzz, RUNS, who } from './support/checked.ts';
import { approve, details, fuzzWorlds, headers, JSON_TYPE, knownIds } from './support/world.ts';

/**
 * Fuzzed `POST /redeem`: mutated JSON bodies around a valid redemption of an approval.
 * Properties, seed and runs: `support/checked.ts`.
 */

describe.each(['memory', 'redis'] as const)('fuzzed requests (%s store)', (storeKind) => {
  const runs = RUNS[storeKind];
  const world = fuzzWorlds(storeKind);

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
});
