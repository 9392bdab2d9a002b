import { CountersignError, type DeviceSummary } from '@countersign/shared';
import type { AuditType } from '../audit/index.ts';
import type { Deps } from '../deps.ts';
import { deleteDevice, findDevice, listDevices, updateDevice, type DeviceRecord } from './device-record.ts';
import type { DeviceSession } from './session.ts';

/** The device-management events this folder writes to the audit trail. */
export type DeviceAuditType = Extract<AuditType, 'device_enrollment_created' | 'device_renamed' | 'device_removed'>;

/**
 * Records a device-management event on the device channel, by the calling device.
 * @param credentialId - the passkey that confirmed it, when one did.
 */
export function auditDevice(deps: Pick<Deps, 'audit'>, session: DeviceSession, type: DeviceAuditType, detail: Record<string, string>, credentialId?: string): Promise<void> {
  return deps.audit.record({ type, tenant: session.tenant, sub: session.sub, device_id: session.device_id, ...(credentialId ? { credential_id: credentialId } : {}), channel: 'device', detail });
}

/** A device as the PWA lists it. */
function summary(device: DeviceRecord, session: DeviceSession): DeviceSummary {
  return {
    device_id: device.device_id,
    name: device.name,
    created_at: new Date(device.created_at).toISOString(),
    last_used_at: device.last_used_at === null ? null : new Date(device.last_used_at).toISOString(),
    this_device: device.device_id === session.device_id,
  };
}

/** The caller's devices (`GET /api/device/devices`), oldest first, the calling one flagged. */
export async function listDeviceSummaries(deps: Pick<Deps, 'store'>, session: DeviceSession): Promise<DeviceSummary[]> {
  const devices = await listDevices(deps.store, session.tenant, session.sub);
  return devices.sort((a, b) => a.created_at - b.created_at || a.device_id.localeCompare(b.device_id)).map((device) => summary(device, session));
}

/**
 * Renames one of the caller's devices (audited `device_renamed`), as a compare-and-swap that keeps
 * a signature counter saved meanwhile. A device id of another user is not found: the user is part
 * of the key.
 * @throws CountersignError `not_found`.
 */
export async function renameDevice(deps: Pick<Deps, 'store' | 'audit'>, session: DeviceSession, deviceId: string, name: string): Promise<DeviceSummary> {
  const device = await findDevice(deps.store, session.tenant, session.sub, deviceId);
  const update = device ? await updateDevice(deps.store, device, (current) => ({ ...current, name })) : null;
  if (update?.status !== 'written') throw new CountersignError('not_found', 'No such device.');
  await auditDevice(deps, session, 'device_renamed', { target_device_id: deviceId });
  return summary(update.device, session);
}

/**
 * Removes one of the caller's devices, this one included (audited `device_removed`): its passkey
 * no longer approves anything, its push subscriptions are gone and its sessions stop working.
 * The user's open PWAs hear of it on their live stream (`deps.events`): the others show it, the
 * removed device's stream ends.
 * @throws CountersignError `not_found`.
 */
export async function removeDevice(deps: Pick<Deps, 'store' | 'audit' | 'events'>, session: DeviceSession, deviceId: string): Promise<void> {
  const device = await findDevice(deps.store, session.tenant, session.sub, deviceId);
  if (!device) throw new CountersignError('not_found', 'No such device.');
  await deleteDevice(deps.store, session.tenant, session.sub, deviceId);
  await auditDevice(deps, session, 'device_removed', { target_device_id: deviceId, target_credential_id: device.credential_id });
  deps.events.publishDeviceRemoved(session.tenant, session.sub, { device_id: deviceId, name: device.name, by: 'person', by_device_id: session.device_id });
}
