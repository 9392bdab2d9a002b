import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arrivalWaiter } from '../support/arrival-waiter.ts';
import { monotonicMs } from './clock.ts';

/**
 * A ping-mode client's notification endpoint (CIBA Core §10.2), run in the benchmark's own
 * process: it notes when the ping of each `auth_req_id` arrived and answers 204, as a client
 * would before it comes for the token. Plain HTTP on 127.0.0.1, which the server allows in
 * development (`endpointProblem`).
 */
export interface PingReceiver {
  /** `http://127.0.0.1:PORT/ping`: the client's `backchannel_client_notification_endpoint`. */
  endpoint: string;
  /** The `client_notification_token` the client's requests carry; a ping with another bearer is malformed. */
  token: string;
  /** Pings received, and how many lacked the bearer token or a JSON body with an `auth_req_id`. */
  stats: { received: number; malformed: number };
  /** When the first ping of each `auth_req_id` was fully received, on the monotonic clock (`monotonicMs`). */
  arrivals: Map<string, number>;
  /** Resolves once `done()` holds, checked as messages arrive (or after `timeoutMs`); answers the wait in ms. */
  waitUntil(done: () => boolean, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1 (a free port). */
export async function startPingReceiver(): Promise<PingReceiver> {
  const token = randomBytes(18).toString('base64url');
  const stats = { received: 0, malformed: 0 };
  const arrivals = new Map<string, number>();
  const waiter = arrivalWaiter();

  const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      // Taken before parsing, so that the time is the ping's arrival, not this process's work on it.
      const at = monotonicMs();
      stats.received++;
      let id: unknown;
      try {
        id = (JSON.parse(text) as { auth_req_id?: unknown }).auth_req_id;
      } catch {
        id = undefined;
      }
      if (request.headers.authorization !== `Bearer ${token}` || typeof id !== 'string') stats.malformed++;
      else if (!arrivals.has(id)) arrivals.set(id, at);
      response.writeHead(204).end();
      waiter.moved();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping`;

  return {
    endpoint,
    token,
    stats,
    arrivals,
    waitUntil: waiter.waitUntil,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
