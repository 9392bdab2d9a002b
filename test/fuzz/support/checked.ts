import fc from 'fast-check';
import { basic, LEAK, OAUTH_DESCRIPTION, send, type Answer, type Raw } from '../../support/raw-request.ts';
import { disallowedChanges } from '../../support/allowed-changes.ts';
import type { Change } from '../../support/store-watch.ts';
import type { World } from './world.ts';

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
 * - a 4xx changes nothing but what `test/support/allowed-changes.ts` allows a refusal (its `refused`
 *   audit event; a decision challenge it spent; its rate-limit counter), and, for a poll of a pending request, its poll
 *   rate (CIBA Core §7.3: `interval`, `next_poll_at`), watched as in the bad-input suite.
 *
 * The seed is fixed and the runs bounded (1,750 inputs on the memory store, 650 on Redis, where
 * each is slower), so a run is repeatable and fits CI; a failure names the input and the answer,
 * and fast-check's seed and path to replay it.
 *
 * Each file of `test/fuzz/` fuzzes one endpoint, in worlds of its own (`world.ts`), on both stores.
 */

/** The fixed seed, and the runs of each endpoint on each store. */
export const SEED = 20_261_201;
export const RUNS = { memory: { bcAuthorize: 600, token: 400, redeem: 400, decision: 350 }, redis: { bcAuthorize: 150, token: 100, redeem: 300, decision: 100 } } as const;

/** Who a fuzzed request authenticates as. */
export type Who = 'a' | 'b' | 'c' | 'wrong' | 'none' | 'garbage' | 'bearer' | 'mixed';

/** Client A mostly; now and then another client, a wrong secret, none, or garbage. */
export const who: fc.Arbitrary<Who> = fc.oneof({ weight: 12, arbitrary: fc.constant('a' as const) }, { weight: 1, arbitrary: fc.constantFrom<Who>('b', 'c', 'wrong', 'none', 'garbage', 'bearer', 'mixed') });

/** The `Authorization` header of `as` in the world `w` (undefined for none). */
export function authorization(w: World, as: Who): string | undefined {
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

/** A poll of a pending request may move its poll rate, and nothing else of it (CIBA Core §7.3). */
export function pollRateOnly(change: Change): boolean {
  if (!/^req:\{/.test(change.key) || change.before?.kind !== 'hash' || change.after?.kind !== 'hash') return false;
  const [was, now] = [change.before.value, change.after.value];
  const names = new Set([...Object.keys(was), ...Object.keys(now)]);
  return [...names].every((name) => name === 'interval' || name === 'next_poll_at' || was[name] === now[name]);
}

/** Sends one fuzzed request while the store is watched, and checks the three properties; answers the answer and what changed. */
export async function checked(w: World, raw: Raw, consumes?: RegExp): Promise<Answer & { changes: Change[] }> {
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
export async function fuzz<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, run: (input: T) => Promise<void>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      await run(input);
    }),
    { seed: SEED, numRuns, endOnFailure: true },
  );
}
