import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, UNLIMITED_RATES } from '../../support/harness.ts';
import { LEAK, OAUTH_DESCRIPTION, send } from '../../support/raw-request.ts';
import { expectOnlyAllowedChanges } from '../../support/allowed-changes.ts';
import { watchStore, type StoreWatch } from '../../support/store-watch.ts';
import type { Attack } from './requests.ts';
import { setUpWorld, type World } from './world.ts';

/**
 * Bad input on every endpoint of docs/design.md "HTTP surface", as `createApp` serves it: malformed
 * JSON and forms, unknown fields, impossible amounts, unknown currencies, over-long and deceptive
 * text, wrong content types, missing or wrong credentials, other people's ids.
 *
 * Every case must answer a 4xx with an OAuth error body `{error, error_description}` (no stack
 * trace, no internal path, an RFC 6749 §5.2 description) and must change nothing: the store is
 * watched through its own interface during the call (`test/support/store-watch.ts`: every writing
 * operation of the Store, every kind of key), and every key the call writes is compared before and
 * after. The only changes a refusal may leave are `refused` events, with the answer's error as
 * reason, appended to the tenant's audit chain and its request index (guarantee 9, docs/audit.md)
 * and, where the design says so, a single-use value it consumed (a WebAuthn decision challenge, an
 * enrollment code). `test/store-watch.test.ts` shows the watcher catching a deliberately broken
 * endpoint. The tables run on the memory store and on Redis; after them, controls show the
 * baseline inputs the cases were derived from are valid and every record the cases aimed at is
 * still usable.
 *
 * Each file of `test/bad-input/` holds the cases of one endpoint (or one kind of input) and runs
 * them in a world of its own, on both stores; its `and afterwards` checks, where it has them,
 * look at the records its own cases aimed at.
 */

/** The stores every table runs on. */
export const STORES = ['memory', 'redis'] as const;

/** The attacked world of one store and the watcher on its store, for the tests of one `describe`. */
export interface Attacked {
  /** The world; a stand-in until `beforeAll` has set it up, so a `describe` can hand it to its tests. */
  readonly w: World;
  readonly watch: StoreWatch;
}

/**
 * Sets up the world on `storeKind` before the tests of the calling `describe` and closes it after.
 * Its members are only readable inside tests and hooks.
 */
export function attackedWorld(storeKind: (typeof STORES)[number]): Attacked {
  let world: World | undefined;
  let watch: StoreWatch | undefined;
  beforeAll(async () => {
    // Hundreds of refused credentials from the one source `app.request()` has: not about the limits.
    const h = await createHarness({ store: storeKind, env: UNLIMITED_RATES });
    world = await setUpWorld(h);
    watch = watchStore(h.store);
  });
  afterAll(() => world?.h.close());
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the bad-input world is not set up yet');
    return value;
  };
  const w = new Proxy({} as World, { get: (_target, key) => Reflect.get(ready(world), key) });
  return {
    w,
    get watch() {
      return ready(watch);
    },
  };
}

/** Sends `attack` and checks its answer is the refusal it must get, changing nothing but what it may. */
export async function expectRefused({ w, watch }: Attacked, attack: Attack): Promise<void> {
  const raw = await attack.request(w);
  await w.h.deps.background.drain();
  watch.begin();
  const answer = await send(w.h, raw).catch(async (error: unknown) => {
    await watch.end();
    throw error;
  });
  await w.h.deps.background.drain();
  const changes = await watch.end();

  expect(answer.status, answer.text.slice(0, 500)).toBe(attack.status);
  expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/json\b/);
  expect(answer.body).toBeTypeOf('object');
  expect(answer.body.error).toBeTypeOf('string');
  expect(answer.body.error_description).toBeTypeOf('string');
  const errors = Array.isArray(attack.error) ? attack.error : [attack.error];
  expect(errors).toContain(answer.body.error);
  expect(answer.body.error_description, 'error_description outside RFC 6749 §5.2, or echoing the input at length').toMatch(OAUTH_DESCRIPTION);
  expect(answer.text).not.toMatch(LEAK);
  if (attack.challenge) expect(answer.headers.get('www-authenticate') ?? '').toMatch(attack.challenge);
  if (attack.description) expect(answer.body.error_description).toMatch(attack.description);
  if (attack.allow !== undefined || attack.status === 405) expect(answer.headers.get('allow')).toBe(attack.allow);
  expectOnlyAllowedChanges(changes, { error: answer.body.error, ...(attack.consumes ? { consumes: attack.consumes } : {}) });
}
