import { z } from 'zod';

/**
 * Where a runner in ping mode learns that a request was decided (CIBA Core §10.2). The ping only
 * wakes the runner: the decision itself is always read from the token endpoint, with client
 * authentication, so a forged ping costs one poll and nothing more.
 */
export interface PingSource {
  /** The bearer the server sends with each ping; passed as `client_notification_token` at `/bc-authorize`. */
  readonly client_notification_token: string;
  /**
   * Resolves once a ping for `auth_req_id` arrived (also when it arrived before the call).
   * Rejects with `signal.reason` once `signal` aborts.
   */
  waitForPing(auth_req_id: string, options?: { signal?: AbortSignal }): Promise<void>;
}

/** A {@link PingSource} with the HTTP handler of the client's notification endpoint. */
export interface PingInbox extends PingSource {
  /**
   * Handles one `POST` to the notification endpoint (Web `Request` → `Response`, so it mounts in
   * hono, `@hono/node-server`, Deno or a worker): 204 for a ping with the right bearer, 401
   * without it, 400 for a body that is not `{auth_req_id}`, 405 for another method.
   */
  handle(request: Request): Promise<Response>;
}

/** Options of {@link createPingInbox}. */
export interface PingInboxOptions {
  /** The bearer to expect; 32 random bytes, base64url, when absent. */
  client_notification_token?: string;
  /** Pings kept for requests nobody waits for yet; the oldest go first. Default 1000. */
  maxUnclaimed?: number;
}

const pingBody = z.looseObject({ auth_req_id: z.string().min(1).max(256) });

/**
 * Creates an in-process inbox for ping notifications: serve `handle` at the URL registered as the
 * client's `backchannel_client_notification_endpoint`, and give the inbox to a tool runner as
 * `wait: { ping: inbox }`.
 *
 * @see CIBA Core 1.0 §10.2 (ping callback), RFC 6750 §2.1 (the bearer)
 * @example
 * ```ts
 * const inbox = createPingInbox();
 * serve({ fetch: (request) => inbox.handle(request), port: 3001 });
 * const runner = createToolRunner({ client, tools, wait: { ping: inbox } });
 * ```
 */
export function createPingInbox(options: PingInboxOptions = {}): PingInbox {
  const token = options.client_notification_token ?? randomToken();
  const maxUnclaimed = options.maxUnclaimed ?? 1000;
  /** Pings that came before anybody waited; a Set keeps insertion order, so the oldest is first. */
  const unclaimed = new Set<string>();
  const waiters = new Map<string, Set<() => void>>();

  function received(auth_req_id: string) {
    const waiting = waiters.get(auth_req_id);
    if (waiting) {
      waiters.delete(auth_req_id);
      for (const wake of waiting) wake();
      return;
    }
    unclaimed.delete(auth_req_id);
    unclaimed.add(auth_req_id);
    // Bounded, so a flood of pings with made-up ids cannot grow memory without end.
    for (const oldest of unclaimed) {
      if (unclaimed.size <= maxUnclaimed) break;
      unclaimed.delete(oldest);
    }
  }

  return {
    client_notification_token: token,

    async handle(request) {
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
      const authorization = request.headers.get('authorization') ?? '';
      if (!authorization.startsWith('Bearer ') || !sameText(authorization.slice('Bearer '.length), token)) {
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
      }
      const body = pingBody.safeParse(await request.json().catch(() => undefined));
      if (!body.success) return new Response(null, { status: 400 });
      received(body.data.auth_req_id);
      return new Response(null, { status: 204 });
    },

    waitForPing(auth_req_id, { signal } = {}) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        if (unclaimed.delete(auth_req_id)) return resolve();
        const waiting = waiters.get(auth_req_id) ?? new Set();
        const onAbort = () => {
          waiting.delete(wake);
          if (waiting.size === 0) waiters.delete(auth_req_id);
          reject(signal?.reason);
        };
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        waiting.add(wake);
        waiters.set(auth_req_id, waiting);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Compares two strings in time independent of where they first differ, so the bearer cannot be guessed byte by byte. */
function sameText(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let difference = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) difference |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return difference === 0;
}
