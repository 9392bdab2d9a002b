import type { DeviceRemovedEvent } from '@countersign/shared';

/**
 * The removals of the person's other devices that this tab heard of while it was open, until the
 * person dismisses them: one heard on another screen still shows when they go back to the inbox.
 * Kept in memory only; a reload forgets them (the push notification of the removal stays).
 */
const notices = new Map<string, DeviceRemovedEvent>();
const watchers = new Set<() => void>();

const changed = () => {
  for (const watcher of [...watchers]) watcher();
};

/** Notes a removal heard on the live stream (a device already noted is noted once). */
export function noteDeviceRemoval(event: DeviceRemovedEvent): void {
  notices.set(event.device_id, event);
  changed();
}

/** The removals not dismissed yet, in the order they came. */
export function deviceRemovals(): DeviceRemovedEvent[] {
  return [...notices.values()];
}

/** The person has read the notice of this device's removal. */
export function dismissDeviceRemoval(deviceId: string): void {
  if (notices.delete(deviceId)) changed();
}

/** Calls `watcher` whenever the removals change; returns the stop. */
export function watchDeviceRemovals(watcher: () => void): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** What the notice of a removal says. */
export function deviceRemovalText(event: DeviceRemovedEvent): string {
  return event.by === 'operator'
    ? `Your device "${event.name}" was removed by an administrator. If this is unexpected, contact them.`
    : `Your device "${event.name}" was removed from your account on another of your devices. If that wasn't you, remove any device you don't know and tell whoever runs Countersign for you.`;
}
