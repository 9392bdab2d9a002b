import { CountersignError, createEnrollmentLinkBody, renameDeviceBody, type DeviceEnrollmentLink } from '@countersign/shared';
import type { Hono } from 'hono';
import type { Deps } from '../deps.ts';
import { listHistory } from '../history/index.ts';
import { readJson } from '../http/index.ts';
import { requireDeviceRoom } from './device-cap.ts';
import { createEnrollment } from './enrollment.ts';
import { qrMatrix } from './enrollment-qr.ts';
import { auditDevice, listDeviceSummaries, removeDevice, renameDevice } from './manage-devices.ts';
import type { DeviceVariables } from './session.ts';
import { accountOptions, verifyAccountAssertion } from './verify-account-assertion.ts';

/** A device id from the path; anything not shaped like one is not found (and never reaches a key). */
function deviceIdParam(value: string): string {
  if (!/^dev_[A-Za-z0-9_-]{4,60}$/.test(value)) throw new CountersignError('not_found', 'No such device.');
  return value;
}

/**
 * The approver's own account (docs/design.md "Approver PWA"), on the device API behind the session
 * and the `Origin` check:
 *
 * - `GET /history` → `{entries: HistoryEntry[]}`: past requests, newest first, with state and outcome.
 * - `GET /devices` → `{devices: DeviceSummary[]}`: name, added, last used, which one is this one.
 * - `PATCH /devices/{device_id}` `{name}` → the device (audited `device_renamed`).
 * - `DELETE /devices/{device_id}` → 204: passkey, push subscriptions and sessions of that device
 *   stop working (audited `device_removed`); this device too, which signs it out.
 * - `POST /enrollments/options` → WebAuthn authentication options, then `POST /enrollments`
 *   `{response}` (the passkey's answer) → {@link DeviceEnrollmentLink}: a one-time link (15
 *   minutes) that adds another device to this same user, as a link and a QR code (audited
 *   `device_enrollment_created`). It takes the passkey: a session cookie alone must never be
 *   enough to add a passkey that approves. A user with `MAX_DEVICES_PER_USER` devices gets 409
 *   `too_many_devices` from both, nothing stored (the link's enrollment checks again).
 */
export function registerAccountRoutes(app: Hono<{ Variables: DeviceVariables }>, deps: Deps): void {
  app.get('/history', async (c) => {
    return c.json({ entries: await listHistory(deps, c.get('session')) }, 200, { 'Cache-Control': 'no-store' });
  });

  app.get('/devices', async (c) => {
    return c.json({ devices: await listDeviceSummaries(deps, c.get('session')) }, 200, { 'Cache-Control': 'no-store' });
  });

  app.patch('/devices/:device_id', async (c) => {
    const body = await readJson(c, renameDeviceBody);
    return c.json(await renameDevice(deps, c.get('session'), deviceIdParam(c.req.param('device_id')), body.name), 200, { 'Cache-Control': 'no-store' });
  });

  app.delete('/devices/:device_id', async (c) => {
    await removeDevice(deps, c.get('session'), deviceIdParam(c.req.param('device_id')));
    return c.body(null, 204);
  });

  // A user with MAX_DEVICES_PER_USER devices gets no prompt and no link: checked before the challenge is stored or taken.
  app.post('/enrollments/options', async (c) => {
    const session = c.get('session');
    await requireDeviceRoom(deps, session.tenant, session.sub);
    return c.json(await accountOptions(deps, session, 'add_device'), 200, { 'Cache-Control': 'no-store' });
  });

  app.post('/enrollments', async (c) => {
    const session = c.get('session');
    const body = await readJson(c, createEnrollmentLinkBody);
    await requireDeviceRoom(deps, session.tenant, session.sub);
    const device = await verifyAccountAssertion(deps, session, 'add_device', body.response);
    const user = c.get('user');
    if (!user) throw new CountersignError('login_required', 'This device is no longer enrolled.');
    const enrollment = await createEnrollment(deps, user);
    await auditDevice(deps, session, 'device_enrollment_created', { expires_in: String(enrollment.expires_in) }, device.credential_id);
    const link: DeviceEnrollmentLink = { enrollment_url: enrollment.enrollment_url, expires_in: enrollment.expires_in, qr: qrMatrix(enrollment.enrollment_url) };
    return c.json(link, 201, { 'Cache-Control': 'no-store' });
  });
}
