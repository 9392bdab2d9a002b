import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import type { EnrolledUser } from '../support/harness.ts';
import type { Raw } from '../support/raw-request.ts';
import { contentType, jsonChanges, mutatedJson } from '../support/mutations.ts';
import { checked, fuzz, RUNS } from './support/checked.ts';
import { ask, fuzzWorlds, headers, JSON_TYPE, knownIds } from './support/world.ts';

/**
 * Fuzzed `POST /api/device/requests/{id}/decision`: mutated bodies around alice's own signed
 * decision, other ids, sessions and Origins. Properties, seed and runs: `support/checked.ts`.
 */

describe.each(['memory', 'redis'] as const)('fuzzed requests (%s store)', (storeKind) => {
  const runs = RUNS[storeKind];
  const world = fuzzWorlds(storeKind);

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
