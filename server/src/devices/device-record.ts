import type { Store } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** One installed approver PWA of one user: a WebAuthn credential (passkey) and its metadata. */
export interface DeviceRecord {
  device_id: string;
  tenant: string;
  sub: string;
  name: string;
  /** The credential id, base64url. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The last signature counter seen (WebAuthn Level 3 §6.1.1). */
  counter: number;
  transports: string[];
  aaguid: string;
  /** Epoch ms. */
  created_at: number;
  last_used_at: number | null;
}

/** All devices of a user. */
export async function listDevices(store: Store, tenant: string, sub: string): Promise<DeviceRecord[]> {
  const ids = await store.setMembers(keys.userDevices(tenant, sub));
  const records = await Promise.all(ids.map((id) => store.get(keys.device(tenant, sub, id))));
  return records.filter((json): json is string => json !== null).map((json) => JSON.parse(json) as DeviceRecord);
}

/** One device of a user, or null. */
export async function findDevice(store: Store, tenant: string, sub: string, deviceId: string): Promise<DeviceRecord | null> {
  const json = await store.get(keys.device(tenant, sub, deviceId));
  return json ? (JSON.parse(json) as DeviceRecord) : null;
}

/** Writes a device and lists it under its user. */
export async function saveDevice(store: Store, device: DeviceRecord): Promise<void> {
  await store.set(keys.device(device.tenant, device.sub, device.device_id), JSON.stringify(device));
  await store.setAdd(keys.userDevices(device.tenant, device.sub), device.device_id);
}

/**
 * Rewrites a device that exists (a new counter, last use, a new name), and never brings back one
 * that was removed meanwhile: the user's device set is the truth, so the record is written, then
 * the set is read, and a device no longer in it is deleted again. Whatever the interleaving with
 * {@link deleteDevice} (set first, record second), a removed device stays removed.
 *
 * @returns false when the device had been removed (nothing is left written).
 */
export async function updateDevice(store: Store, device: DeviceRecord): Promise<boolean> {
  const key = keys.device(device.tenant, device.sub, device.device_id);
  // One round trip: both keys share the user's hash tag, so the write and the read go out in this
  // order on one connection and the store runs them in this order.
  const [, members] = await Promise.all([store.set(key, JSON.stringify(device)), store.setMembers(keys.userDevices(device.tenant, device.sub))]);
  if (members.includes(device.device_id)) return true;
  await store.delete(key);
  return false;
}

/**
 * Removes a device: out of the user's device set first (from then on no prompt allows its passkey
 * and no decision finds it), then its record and its push subscriptions. Its sessions have no
 * index; they stop working because every session call checks its device still exists.
 *
 * @returns whether the device was there.
 */
export async function deleteDevice(store: Store, tenant: string, sub: string, deviceId: string): Promise<boolean> {
  const existed = (await store.setMembers(keys.userDevices(tenant, sub))).includes(deviceId);
  await store.setRemove(keys.userDevices(tenant, sub), deviceId);
  const [record] = await Promise.all([store.delete(keys.device(tenant, sub, deviceId)), store.delete(keys.devicePush(tenant, sub, deviceId))]);
  return existed || record;
}

/** Whether the device is on its user's account (in the user's device set, the truth {@link deleteDevice} changes first). */
export async function hasDevice(store: Store, tenant: string, sub: string, deviceId: string): Promise<boolean> {
  return (await store.setMembers(keys.userDevices(tenant, sub))).includes(deviceId);
}
