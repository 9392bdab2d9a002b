import type { DeviceRemovedEvent } from '@countersign/shared';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Deps } from '../deps.ts';
import type { DeviceRemoved } from '../events/index.ts';
import { acquireStreamSlot, enforceRate } from '../rate-limits/index.ts';
import { hasDevice } from './device-record.ts';
import { sessionSubject } from './device-limits.ts';
import type { DeviceSession, DeviceVariables } from './session.ts';

/** Seconds between keep-alive comments on the event stream (proxies close idle connections). */
const HEARTBEAT_SECONDS = 25;

/**
 * `GET /api/device/events`: the session's live stream of its user's events (server-sent events:
 * `ready`, then a `request` per request change and a `device` per device removal, see
 * `DeviceRemovedEvent`, and a keep-alive comment every 25 s). The removal of the stream's own
 * device ends it after its `device` event: the device's sessions stopped working with the
 * removal, and the PWA reopening the stream gets `login_required`. A removal whose event was lost
 * (a Redis hiccup), or came between the session check and the subscription, ends the stream at
 * the next keep-alive, which checks the device is still there: a removed device's stream never
 * goes on hearing of the user's requests.
 *
 * A session may open streams at `RATE_LIMIT_DEVICE_STREAMS` and hold at most `DEVICE_STREAMS_MAX`
 * open at once, on all instances together: each stream holds a lease on a slot, renewed with each
 * keep-alive and given back when the stream closes (see `acquireStreamSlot`).
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
      let endStream = () => {};
      const removed = new Promise<void>((resolve) => (endStream = resolve));
      let written = Promise.resolve();
      const unsubscribe = deps.events.subscribe(session.tenant, session.sub, (live) => {
        if (live.kind === 'request') {
          written = stream.writeSSE({ event: 'request', data: JSON.stringify(live.event) });
          return;
        }
        const event = deviceStreamEvent(live.event, session);
        written = stream.writeSSE({ event: 'device', data: JSON.stringify(event) });
        if (event.this_device) endStream();
      });
      stream.onAbort(() => {
        unsubscribe();
        release();
      });
      try {
        await stream.writeSSE({ event: 'ready', data: '{}' });
        while (!stream.aborted && !stream.closed) {
          if ((await Promise.race([stream.sleep(HEARTBEAT_SECONDS * 1000), removed.then(() => 'removed' as const)])) === 'removed') {
            await written.catch(() => undefined);
            break;
          }
          if (stream.aborted || stream.closed) break;
          // A slot lost (its lease ran out unrenewed and another stream took it) ends this stream.
          const [renewed, present] = await Promise.all([slot.renew(), hasDevice(deps.store, session.tenant, session.sub, session.device_id)]);
          if (!renewed || !present) break;
          await stream.write(': keep-alive\n\n');
        }
      } finally {
        unsubscribe();
        release();
      }
    });
  };
}

function deviceStreamEvent(removal: DeviceRemoved, session: DeviceSession): DeviceRemovedEvent {
  return { kind: 'device_removed', device_id: removal.device_id, name: removal.name, by: removal.by, this_device: removal.device_id === session.device_id, by_this_device: removal.by_device_id === session.device_id };
}
