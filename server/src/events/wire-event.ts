import type { DeviceRemoved, LiveEvent, RequestChanged } from './event-bus.ts';

/**
 * A message of the Redis channel: the origin instance, the user, the event.
 *
 * Versioned so that instances of two releases can share a channel during a rolling upgrade:
 * - Version 1 (no `v`, no `kind`) carried request changes only: `event` is `{ auth_req_id, state }`.
 * - Version 2 adds `v: 2` and `kind` (`request` or `device_removed`). A request change keeps the
 *   version 1 fields, so an instance that knows only version 1 still delivers it; a device
 *   removal's `event` has no `auth_req_id`, so such an instance drops it (as a malformed message,
 *   with a warning) instead of handing its streams something they cannot read.
 * - A `kind` this release does not know is a later release's: skipped without a word.
 */
interface WireEvent {
  v: 2;
  origin: string;
  tenant: string;
  sub: string;
  kind: LiveEvent['kind'];
  event: RequestChanged | DeviceRemoved;
}

/** What {@link parseWireEvent} made of a message. */
export type ParsedWireEvent = { status: 'event'; origin: string; tenant: string; sub: string; live: LiveEvent } | { status: 'unknown_kind' } | { status: 'malformed' };

/** The channel message of `live`, with only the fields of its kind (nothing else a caller put on it travels). */
export function encodeWireEvent(origin: string, tenant: string, sub: string, live: LiveEvent): string {
  const event: RequestChanged | DeviceRemoved = live.kind === 'request' ? { auth_req_id: live.event.auth_req_id, state: live.event.state } : { device_id: live.event.device_id, name: live.event.name, by: live.event.by, ...(live.event.by_device_id === undefined ? {} : { by_device_id: live.event.by_device_id }) };
  const wire: WireEvent = { v: 2, origin, tenant, sub, kind: live.kind, event };
  return JSON.stringify(wire);
}

/** A message of the channel (version 1 or 2), checked field by field: what is delivered is what a server published. */
export function parseWireEvent(message: string): ParsedWireEvent {
  const malformed = { status: 'malformed' } as const;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return malformed;
  }
  if (typeof value !== 'object' || value === null) return malformed;
  const { origin, tenant, sub, kind = 'request', event } = value as Record<string, unknown>;
  if (typeof origin !== 'string' || typeof tenant !== 'string' || typeof sub !== 'string' || typeof kind !== 'string') return malformed;
  if (kind !== 'request' && kind !== 'device_removed') return { status: 'unknown_kind' };
  if (typeof event !== 'object' || event === null) return malformed;
  const live = kind === 'request' ? requestChanged(event as Record<string, unknown>) : deviceRemoved(event as Record<string, unknown>);
  return live ? { status: 'event', origin, tenant, sub, live } : malformed;
}

function requestChanged({ auth_req_id: authReqId, state }: Record<string, unknown>): LiveEvent | null {
  if (typeof authReqId !== 'string' || typeof state !== 'string') return null;
  return { kind: 'request', event: { auth_req_id: authReqId, state } };
}

function deviceRemoved({ device_id: deviceId, name, by, by_device_id: byDeviceId }: Record<string, unknown>): LiveEvent | null {
  if (typeof deviceId !== 'string' || typeof name !== 'string' || (by !== 'operator' && by !== 'person')) return null;
  if (byDeviceId !== undefined && typeof byDeviceId !== 'string') return null;
  return { kind: 'device_removed', event: { device_id: deviceId, name, by, ...(byDeviceId === undefined ? {} : { by_device_id: byDeviceId }) } };
}
