import { CountersignError } from '@countersign/shared';
import type { Config } from '../config/index.ts';
import { type IndexStore, keys } from '../store/index.ts';

/** What the device cap reads: a subset of the server's `Deps`. */
export interface DeviceCapDeps {
  store: IndexStore;
  config: Pick<Config, 'maxDevicesPerUser'>;
}

/**
 * The refusal of a device past the cap: 409, because the account's state (its devices) is what
 * stands in the way, and removing one lets the same call through.
 */
export function tooManyDevices(max: number): CountersignError {
  return new CountersignError('too_many_devices', `This account already has ${max} devices, the most it may have. Remove one you no longer use (under Devices), then try again.`);
}

/** How many devices the user has: the members of their device set, the truth `deleteDevice` changes first. */
async function devicesHeld(store: IndexStore, tenant: string, sub: string): Promise<number> {
  return (await store.setMembers(keys.userDevices(tenant, sub))).length;
}

/**
 * Refuses to start adding a device to a user who has `MAX_DEVICES_PER_USER` already: checked
 * before anything is written or used up (an enrollment code, an account prompt's challenge).
 *
 * Why a cap: every limit of a device session (views, changes, event streams) is per device, and a
 * user may add devices at will (each costs a passkey assertion), so without one a user held as
 * many allowances, streams and passkeys in every prompt's `allowCredentials` as they cared to make.
 * With it a user holds at most `MAX_DEVICES_PER_USER` times one device's.
 *
 * @throws CountersignError `too_many_devices` (409).
 */
export async function requireDeviceRoom(deps: DeviceCapDeps, tenant: string, sub: string): Promise<void> {
  const max = deps.config.maxDevicesPerUser;
  if ((await devicesHeld(deps.store, tenant, sub)) >= max) throw tooManyDevices(max);
}

/**
 * After a new device was added to its user's set: whether the set is within the cap. Concurrent
 * enrollments with several codes all pass {@link requireDeviceRoom} before any of them is added;
 * each then reads the set after its own add, and one that finds more than `max` takes itself out
 * again. Whichever add came last sees every add before it, so the cap holds once they are done
 * (two racing for the last place may both go; neither ever had a session).
 */
export async function withinDeviceCap(deps: DeviceCapDeps, tenant: string, sub: string): Promise<boolean> {
  return (await devicesHeld(deps.store, tenant, sub)) <= deps.config.maxDevicesPerUser;
}
