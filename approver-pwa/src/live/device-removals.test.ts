import type { DeviceRemovedEvent } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { deviceRemovals, deviceRemovalText, dismissDeviceRemoval, noteDeviceRemoval, watchDeviceRemovals } from './device-removals.ts';

const removal = (deviceId: string, name: string, by: DeviceRemovedEvent['by'] = 'operator'): DeviceRemovedEvent => ({ kind: 'device_removed', device_id: deviceId, name, by, this_device: false, by_this_device: false });

describe('the notices of removed devices', () => {
  it('keeps each removal once, in order, until dismissed, and tells its watchers of every change', () => {
    let changes = 0;
    const stop = watchDeviceRemovals(() => changes++);
    noteDeviceRemoval(removal('dev_a', 'Pixel'));
    noteDeviceRemoval(removal('dev_b', 'Tablet'));
    noteDeviceRemoval(removal('dev_a', 'Pixel'));
    expect(deviceRemovals().map((event) => event.name)).toEqual(['Pixel', 'Tablet']);
    dismissDeviceRemoval('dev_a');
    dismissDeviceRemoval('dev_unknown');
    expect(deviceRemovals().map((event) => event.name)).toEqual(['Tablet']);
    expect(changes).toBe(4);
    stop();
    dismissDeviceRemoval('dev_b');
    expect([deviceRemovals(), changes]).toEqual([[], 4]);
  });

  it('says who removed the device', () => {
    expect(deviceRemovalText(removal('dev_a', 'Pixel'))).toBe('Your device "Pixel" was removed by an administrator. If this is unexpected, contact them.');
    expect(deviceRemovalText(removal('dev_a', 'Pixel', 'person'))).toMatch(/^Your device "Pixel" was removed from your account on another of your devices\./);
  });
});
