import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Deps } from '../deps.ts';
import { acquireStreamSlot, enforceRate } from '../rate-limits/index.ts';
import { sessionSubject } from './device-limits.ts';
import type { DeviceVariables } from './session.ts';

/** Seconds between keep-alive comments on the event stream (proxies close idle connections). */
const HEARTBEAT_SECONDS = 25;

/**
 * `GET /api/device/events`: the session's live stream of its user's request changes (server-sent
 * events: `ready`, then a `request` per change, and a keep-alive comment every 25 s). A session may
 * open streams at `RATE_LIMIT_DEVICE_STREAMS` and hold at most `DEVICE_STREAMS_MAX` open at once,
 * on all instances together: each stream holds a lease on a slot, renewed with each keep-alive and
 * given back when the stream closes (see `acquireStreamSlot`).
 * @throws CountersignError 429 `too_many_requests` with `Retry-After`, before the stream starts.
 * @see HTML Living Standard §9.2 (server-sent events)
 */
export function eventStreamHandler(deps: Deps) {
  return async function events(c: Context<{ Variables: DeviceVariables }>): Promise<Response> {
    const session = c.get('session');
    const subject = sessionSubject(session);
    await enforceRate(deps, 'deviceStreams', subject, 'This device opens event streams too often.');
    const slot = await acquireStreamSlot(deps, subject, deps.config.deviceStreamsMax);
    const release = () => void slot.release().catch((error: unknown) => deps.log.warn('event stream slot not released', { error: String(error) }));
    return streamSSE(c, async (stream) => {
      const unsubscribe = deps.events.subscribe(session.tenant, session.sub, (event) => {
        void stream.writeSSE({ event: 'request', data: JSON.stringify(event) });
      });
      stream.onAbort(() => {
        unsubscribe();
        release();
      });
      try {
        await stream.writeSSE({ event: 'ready', data: '{}' });
        while (!stream.aborted && !stream.closed) {
          await stream.sleep(HEARTBEAT_SECONDS * 1000);
          if (stream.aborted || stream.closed) break;
          // A slot lost (its lease ran out unrenewed and another stream took it) ends this stream.
          if (!(await slot.renew())) break;
          await stream.write(': keep-alive\n\n');
        }
      } finally {
        unsubscribe();
        release();
      }
    });
  };
}
