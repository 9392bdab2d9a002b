import { CountersignError } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { keys } from '../store/index.ts';
import { deleteDevice, findDevice, listDevices, type DeviceRecord } from './device-record.ts';

/** Seconds a "device removed" push may wait at the push service for a device that is offline. */
const REMOVAL_NOTICE_TTL_SECONDS = 24 * 60 * 60;

/**
 * A device as the operator sees it: never its public key nor its signature counter (nothing an
 * operator acts on); times as RFC 3339 strings.
 */
export interface OperatorDeviceView {
  device_id: string;
  name: string;
  credential_id: string;
  aaguid: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
  /** How many push subscriptions the device holds (0: it is never pushed). */
  push_subscriptions: number;
}

async function view(deps: Pick<Deps, 'store'>, device: DeviceRecord): Promise<OperatorDeviceView> {
  return {
    device_id: device.device_id,
    name: device.name,
    credential_id: device.credential_id,
    aaguid: device.aaguid,
    transports: device.transports,
    created_at: new Date(device.created_at).toISOString(),
    last_used_at: device.last_used_at === null ? null : new Date(device.last_used_at).toISOString(),
    push_subscriptions: await deps.store.hashLength(keys.devicePush(device.tenant, device.sub, device.device_id)),
  };
}

/**
 * A user's devices for the operator (`GET /api/admin/users/{sub}/devices`), oldest first. All of
 * them in one answer: a user has at most `MAX_DEVICES_PER_USER` (10 by default).
 */
export async function listOperatorDevices(deps: Pick<Deps, 'store'>, tenant: string, sub: string): Promise<OperatorDeviceView[]> {
  const devices = await listDevices(deps.store, tenant, sub);
  devices.sort((a, b) => a.created_at - b.created_at || a.device_id.localeCompare(b.device_id));
  return Promise.all(devices.map((device) => view(deps, device)));
}

/**
 * An operator revokes a user's device (a lost phone): the same removal as the person's own
 * (`removeDevice`: its passkey approves nothing from then on, its push subscriptions and sessions
 * are gone), audited `device_removed` on the `admin` channel with `detail.by` = `operator`. Then
 * the user's other devices are told, so a removal they did not ask for does not go unnoticed: the
 * PWAs open on them at once, by a `device` event on their live stream (`deps.events`, which also
 * ends the removed device's own stream), and all of them by push (`kind: device_removed`), which
 * reaches a device whose app is closed. A push that fails is logged, and the removal stands.
 *
 * @returns how many of the user's remaining push subscriptions accepted the notice.
 * @throws CountersignError `not_found` when the user has no such device.
 */
export async function revokeDevice(deps: Pick<Deps, 'store' | 'audit' | 'push' | 'events' | 'log'>, tenant: string, sub: string, deviceId: string): Promise<{ device_id: string; notified: number }> {
  const device = await findDevice(deps.store, tenant, sub, deviceId);
  if (!device) throw new CountersignError('not_found', 'No such device.');
  await deleteDevice(deps.store, tenant, sub, deviceId);
  await deps.audit.record({ type: 'device_removed', tenant, sub, device_id: deviceId, credential_id: device.credential_id, channel: 'admin', detail: { by: 'operator', target_device_id: deviceId, target_credential_id: device.credential_id } });
  deps.events.publishDeviceRemoved(tenant, sub, { device_id: deviceId, name: device.name, by: 'operator' });
  let notified = 0;
  try {
    const result = await deps.push.notifyUser({ tenant, sub, auth_req_id: deviceId, summary: `Your device "${device.name}" was removed by an administrator. If this is unexpected, contact them.`, ttlSeconds: REMOVAL_NOTICE_TTL_SECONDS, kind: 'device_removed' });
    notified = result.sent;
  } catch (error) {
    deps.log.warn('device removal notice not sent', { tenant, error: String(error) });
  }
  return { device_id: deviceId, notified };
}
