import { OffsetClock } from '@countersign/server';
import { afterEach, expect } from 'vitest';
import { pay, testPolicy, watchAudit, type SeenEvent } from '../guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { recordWrites } from '../support/store-watch.ts';

/**
 * Refusals and views cannot grow storage without bound (docs/security.md). Rate limits per client
 * (`/bc-authorize`, `/token`, `/redeem`), per source address (failed client and admin
 * authentication, wrong enrollment codes) and per device session (request views, state-changing
 * calls, event streams): over a limit the answer
 * is 429 with `Retry-After` and an OAuth body, and the only thing written is the limit's counter.
 * On the memory store and on Redis.
 *
 * What the test/rate-limits/ files share: a clock that stands still, every limit at 3 per 60 s, a
 * harness started per test, and the checks of an over-limit answer and of what a call wrote.
 */

/** A clock that stands still until told: every `Retry-After` below is exact. */
export class StillClock extends OffsetClock {
  #now = Date.now();
  override now(): number {
    return this.#now;
  }
  override advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
}

/** Every limit at 3 per 60 s: three calls at once, then one every 20 s. */
const LIMITS = {
  RATE_LIMIT_BC_AUTHORIZE: '3/60',
  RATE_LIMIT_TOKEN: '3/60',
  RATE_LIMIT_REDEEM: '3/60',
  RATE_LIMIT_OUTCOME: '3/60',
  RATE_LIMIT_CLIENT_AUTH_FAILURES: '3/60',
  RATE_LIMIT_ADMIN_AUTH_FAILURES: '3/60',
  RATE_LIMIT_DEVICE_VIEWS: '3/60',
  RATE_LIMIT_DEVICE_STREAMS: '6/60',
  RATE_LIMIT_DEVICE_CHANGES: '3/60',
  RATE_LIMIT_ENROLLMENT_FAILURES: '3/60',
  DEVICE_STREAMS_MAX: '2',
};

/**
 * Records the Store writes of one call (operation and key, as `recordWrites` classifies them from
 * the Store's type: a peek at a rate limit writes nothing), background work included.
 */
export function watchWrites(harness: Harness) {
  return {
    /** Runs `call` and answers it with the writes it made, once its background work is done. */
    async during<T>(call: () => Promise<T>): Promise<{ result: T; writes: [string, string][] }> {
      // What earlier calls left to do in the background (pushes, audit batches) is not this call's.
      await harness.drain();
      const watch = recordWrites(harness.store);
      try {
        const result = await call();
        await harness.deps.background.drain();
        return { result, writes: watch.writes.map((write): [string, string] => [write.slice(0, write.indexOf(' ')), write.slice(write.indexOf(' ') + 1)]) };
      } finally {
        watch.stop();
      }
    },
  };
}

/** An over-limit answer: 429, `Retry-After` in seconds, an OAuth error body. */
export function expectTooMany(answer: { status: number; body: any; headers: Headers }, error: string, retryAfter: number): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('retry-after')).toBe(String(retryAfter));
  expect(answer.body).toStrictEqual({ error, error_description: expect.stringMatching(new RegExp(`Retry after ${retryAfter} s\\.$`)) });
}

/** A registered client and its secret. */
export type Client = { client_id: string; client_secret: string };
/** The HTTP Basic header of `client`, with its own secret unless told another. */
export const basic = (client: Client, secret = client.client_secret) => `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}`;

/** What one test starts: a harness on a still clock, alice enrolled, two clients, the audit seen. */
export type Started = { harness: Harness; clock: StillClock; audit: SeenEvent[]; alice: EnrolledUser; agent: Client; other: Client };

/**
 * The per-test set-up of a `rate limits (%s store)` suite on `storeKind`: `start` builds a harness
 * with {@link LIMITS} (and `env` over them), closed after each test; the helpers call whatever
 * harness the running test started.
 */
export function rateLimitSuite(storeKind: 'memory' | 'redis') {
  let open: Harness | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });
  const current = (): Harness => {
    if (!open) throw new Error('call start() first');
    return open;
  };

  async function start(env: Record<string, string> = {}): Promise<Started> {
    const clock = new StillClock();
    const harness = await createHarness({ store: storeKind, clock, env: { POLICY_FILE: testPolicy(), ...LIMITS, ...env } });
    open = harness;
    const alice = await harness.enrollUser('alice');
    const agent = await harness.createClient('Refund agent');
    const other = await harness.createClient('Billing agent');
    return { harness, clock, alice, agent, other, audit: watchAudit(harness) };
  }

  /**
   * A call through `app.request` as if it came over a socket whose peer is `address`: the
   * `incoming` request @hono/node-server's getConnInfo reads, marked as read so the body is taken
   * from the `Request` (see `http/read-body.ts`).
   */
  async function callFrom(address: string, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const harness = current();
    const socket = { remoteAddress: address, remotePort: 40_000, remoteFamily: address.includes(':') ? 'IPv6' : 'IPv4' };
    const response = await harness.app.request(`${harness.issuer}${path}`, { method, headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) }, { incoming: { socket, readableDidRead: true } });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }
  /** What a device session's limits are keyed by: its tenant, user and device. */
  const sessionOf = async (user: EnrolledUser) => `default:${user.sub}:${(await current().call('GET', '/api/device/me', { headers: { cookie: user.cookie } })).body.device.device_id}`;
  /** A `/redeem` call by `client` of `token` (by default one that is no token). */
  const redeem = (client: Client, token = 'not-a-token') => current().call('POST', '/redeem', { body: { token, authorization_details: pay('txn_r') }, headers: { authorization: basic(client) } });

  return { start, callFrom, sessionOf, redeem };
}
