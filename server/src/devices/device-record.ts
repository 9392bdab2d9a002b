import { CountersignError } from '@countersign/shared';
import type { IndexStore, RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import { claimCredential, releaseCredential } from './credential-index.ts';

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
  /** The known AuthenticatorTransport values the passkey's registration listed (at most six; see `transports.ts`). */
  transports: string[];
  aaguid: string;
  /** Epoch ms. */
  created_at: number;
  last_used_at: number | null;
  /**
   * Set once the credential id is this device's in the tenant's credential index
   * (`keys.credential`): at enrollment, or for a device enrolled before the index, at its first
   * {@link updateDevice}.
   */
  credential_claimed?: true;
}

/** All devices of a user. */
export async function listDevices(store: RecordStore & IndexStore, tenant: string, sub: string): Promise<DeviceRecord[]> {
  const ids = await store.setMembers(keys.userDevices(tenant, sub));
  const records = await Promise.all(ids.map((id) => store.get(keys.device(tenant, sub, id))));
  return records.filter((json): json is string => json !== null).map((json) => JSON.parse(json) as DeviceRecord);
}

/** One device of a user, or null. */
export async function findDevice(store: RecordStore & IndexStore, tenant: string, sub: string, deviceId: string): Promise<DeviceRecord | null> {
  const json = await store.get(keys.device(tenant, sub, deviceId));
  return json ? (JSON.parse(json) as DeviceRecord) : null;
}

/**
 * Writes a new device and lists it under its user. Its credential id must have been claimed
 * (`claimCredential`) first.
 */
export async function saveDevice(store: RecordStore & IndexStore, device: DeviceRecord): Promise<void> {
  await store.set(keys.device(device.tenant, device.sub, device.device_id), JSON.stringify(device));
  await store.setAdd(keys.userDevices(device.tenant, device.sub), device.device_id);
}

/** What {@link updateDevice} did. */
export type DeviceUpdate =
  | { status: 'written'; device: DeviceRecord }
  /** The change refused the device as it stands now; nothing was written. */
  | { status: 'refused'; device: DeviceRecord }
  /** The device is no longer on its user's account; nothing of it is left written. */
  | { status: 'removed' };

/** Swaps that may lose to another writer of the same device before an update gives up (503). */
const UPDATE_ATTEMPTS = 5;

/**
 * Rewrites a device with `change` applied to it, as a compare-and-swap of its record
 * (`Store.replace`): written only while the record is still the one `change` was given; otherwise
 * read again and `change` applied to what is there. So two writers never lose each other's change,
 * and `change` decides on the record as it stands (a signature counter that another assertion
 * raised meanwhile is compared with the new value, not the old). `change` answers null to refuse.
 *
 * Never brings back a device that was removed meanwhile: a swap never writes a missing record, and
 * the user's device set (the truth {@link deleteDevice} changes first) is read in the same round
 * trip; a device no longer in it is refused, and deleted again should the swap have gone through.
 * A device written before the credential index existed claims its credential id here, once.
 *
 * @param device - the record as read; its JSON (as written) is what the first swap expects.
 * @throws CountersignError `temporarily_unavailable` (503) after {@link UPDATE_ATTEMPTS} lost swaps.
 */
export async function updateDevice(store: RecordStore & IndexStore, device: DeviceRecord, change: (current: DeviceRecord) => DeviceRecord | null): Promise<DeviceUpdate> {
  const key = keys.device(device.tenant, device.sub, device.device_id);
  const claimed = device.credential_claimed || (await claimCredential(store, device, true));
  const removed = async (swapped: boolean): Promise<DeviceUpdate> => {
    await Promise.all([swapped ? store.delete(key) : null, claimed ? releaseCredential(store, device) : null]);
    return { status: 'removed' };
  };
  let current = device;
  let expected = JSON.stringify(device);
  for (let attempt = 1; ; attempt++) {
    const changed = change(current);
    if (!changed) return { status: 'refused', device: current };
    const next: DeviceRecord = claimed ? { ...changed, credential_claimed: true } : changed;
    // One round trip: both keys share the user's hash tag, so the swap and the read go out in this
    // order on one connection and the store runs them in this order.
    const [swapped, members] = await Promise.all([store.replace(key, expected, JSON.stringify(next)), store.setMembers(keys.userDevices(device.tenant, device.sub))]);
    if (!members.includes(device.device_id)) return removed(swapped);
    if (swapped) return { status: 'written', device: next };
    if (attempt === UPDATE_ATTEMPTS) throw new CountersignError('temporarily_unavailable', 'This device is being changed by another call. Try again.');
    const json = await store.get(key);
    if (json === null) return removed(false);
    [current, expected] = [JSON.parse(json) as DeviceRecord, json];
  }
}

/**
 * Removes a device: out of the user's device set first (from then on no prompt allows its passkey
 * and no decision finds it), then its record and its push subscriptions, then its credential id
 * is given back (it may be enrolled again). Its sessions have no index; they stop working because
 * every session call checks its device still exists.
 *
 * @returns whether the device was there.
 */
export async function deleteDevice(store: RecordStore & IndexStore, tenant: string, sub: string, deviceId: string): Promise<boolean> {
  const key = keys.device(tenant, sub, deviceId);
  const [members, json] = await Promise.all([store.setMembers(keys.userDevices(tenant, sub)), store.get(key)]);
  await store.setRemove(keys.userDevices(tenant, sub), deviceId);
  const [record] = await Promise.all([store.delete(key), store.delete(keys.devicePush(tenant, sub, deviceId))]);
  if (json) await releaseCredential(store, JSON.parse(json) as DeviceRecord);
  return members.includes(deviceId) || record;
}

/** Whether the device is on its user's account (in the user's device set, the truth {@link deleteDevice} changes first). */
export async function hasDevice(store: RecordStore & IndexStore, tenant: string, sub: string, deviceId: string): Promise<boolean> {
  return (await store.setMembers(keys.userDevices(tenant, sub))).includes(deviceId);
}
