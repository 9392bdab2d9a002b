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
