import type { RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** What the credential index needs of a device. */
export interface CredentialHolder {
  tenant: string;
  sub: string;
  device_id: string;
  /** base64url, as the library encodes the attested credential id. */
  credential_id: string;
}

/** The index's value for a device: who holds the credential id. */
function holderOf(device: CredentialHolder): string {
  return JSON.stringify({ sub: device.sub, device_id: device.device_id });
}

/**
 * Claims a credential id for one device in its tenant, in one atomic step (SET NX): of two
 * enrollments racing with one credential id, exactly one gets it. Without this, a client could
 * register someone else's credential id (every authentication prompt names it) with a key of its
 * own, and one id would name two passkeys: in the audit trail, and for any lookup by credential.
 *
 * @returns true when the device holds the id now: it was free, or (`mayHoldAlready`, for a device
 *   written before the index existed) this device held it already.
 * @see WebAuthn Level 3 §7.1 step 26 ("verify that the credentialId is not yet registered for any user")
 */
export async function claimCredential(store: RecordStore, device: CredentialHolder, mayHoldAlready = false): Promise<boolean> {
  const key = keys.credential(device.tenant, device.credential_id);
  if (await store.set(key, holderOf(device), { onlyIfAbsent: true })) return true;
  return mayHoldAlready && (await store.get(key)) === holderOf(device);
}

/**
 * Gives a device's credential id back (its device was removed, or never written), so it can be
 * enrolled again; an id another device holds is left alone.
 */
export async function releaseCredential(store: RecordStore, device: CredentialHolder): Promise<void> {
  // Read, then delete: between the two only another release of this same device can change the
  // key, since a claim needs it absent.
  const key = keys.credential(device.tenant, device.credential_id);
  if ((await store.get(key)) === holderOf(device)) await store.delete(key);
}
