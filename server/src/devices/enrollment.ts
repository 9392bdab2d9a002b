import { CountersignError } from '@countersign/shared';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Deps } from '../deps.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { findUser, type UserRecord } from '../users/index.ts';
import { claimCredential, releaseCredential } from './credential-index.ts';
import { requireDeviceRoom, tooManyDevices, withinDeviceCap } from './device-cap.ts';
import { deleteDevice, listDevices, saveDevice, type DeviceRecord } from './device-record.ts';
import { credentialDescriptor, knownTransports } from './transports.ts';

/** Enrollment links are short-lived and single-use. */
const ENROLLMENT_SECONDS = 15 * 60;

interface EnrollmentRecord {
  tenant: string;
  sub: string;
  /** Epoch ms. */
  expires_at: number;
  /** The registration challenge of the last options call, base64url. */
  challenge?: string;
}

/**
 * Creates a one-time enrollment code for a user. The link puts the code in the URL fragment, so
 * it never reaches a server log or a `Referer` header.
 * @returns `expires_in` in seconds.
 */
export async function createEnrollment(deps: Pick<Deps, 'store' | 'clock' | 'ids' | 'config'>, user: UserRecord): Promise<{ enrollment_code: string; enrollment_url: string; expires_in: number }> {
  const code = deps.ids(24);
  const record: EnrollmentRecord = { tenant: user.tenant, sub: user.sub, expires_at: deps.clock.now() + ENROLLMENT_SECONDS * 1000 };
  await deps.store.set(keys.enrollment(code), JSON.stringify(record), { ttlSeconds: ENROLLMENT_SECONDS });
  return { enrollment_code: code, enrollment_url: `${deps.config.publicUrl}/#/enroll/${code}`, expires_in: ENROLLMENT_SECONDS };
}

async function liveEnrollment(deps: Pick<Deps, 'store' | 'clock'>, json: string | null): Promise<{ record: EnrollmentRecord; user: UserRecord }> {
  const record = json ? (JSON.parse(json) as EnrollmentRecord) : null;
  const user = record && record.expires_at > deps.clock.now() ? await findUser(deps.store, record.tenant, record.sub) : null;
  if (!record || !user) throw new CountersignError('invalid_enrollment_code', 'This enrollment link is not valid or has expired. Ask for a new one.');
  return { record, user };
}

/**
 * WebAuthn registration options for an enrollment: a discoverable credential (resident key) with
 * user verification required, no attestation, excluding the user's existing passkeys. A user who
 * has `MAX_DEVICES_PER_USER` devices gets none, and the code stays as it was (usable once they
 * remove one).
 * @throws CountersignError `invalid_enrollment_code`, `too_many_devices` (409).
 * @see WebAuthn Level 3 §5.4 (PublicKeyCredentialCreationOptions)
 */
export async function enrollmentOptions(deps: Deps, code: string) {
  const { record, user } = await liveEnrollment(deps, await deps.store.get(keys.enrollment(code)));
  const existing = await listDevices(deps.store, user.tenant, user.sub);
  if (existing.length >= deps.config.maxDevicesPerUser) throw tooManyDevices(deps.config.maxDevicesPerUser);
  const options = await generateRegistrationOptions({
    rpName: deps.config.rpName,
    rpID: deps.config.rpId,
    userName: user.sub,
    userDisplayName: user.display_name,
    attestationType: 'none',
    excludeCredentials: existing.map(credentialDescriptor),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    timeout: 120_000,
  });
  const ttl = secondsUntil(record.expires_at, deps.clock.now());
  await deps.store.set(keys.enrollment(code), JSON.stringify({ ...record, challenge: options.challenge }), { ttlSeconds: Math.max(ttl, 1) });
  return options;
}

/** The longest credential id registered, in bytes (WebAuthn Level 3 §7.1 step 25); it becomes part of a store key. */
const MAX_CREDENTIAL_ID_BYTES = 1023;

/**
 * Verifies the passkey created for an enrollment and registers the device.
 *
 * The code is consumed by this call whatever its result (GETDEL, before the passkey is checked),
 * so a code registers at most one device and is spent by a refused attempt too. That is the
 * design (one-time links), and it costs an attacker nothing it did not have: only the holder of a
 * code can spend it, and a holder could enroll a passkey of their own with it anyway. It keeps a
 * code from being an oracle that tries many credential ids. An honest browser never sends a
 * registered credential id (the options exclude the user's own, and a new credential is made for
 * any other user).
 *
 * A credential id already registered in the tenant, to any user (this one included), is refused:
 * the id is claimed in the tenant's credential index (SET NX) before the device is written, so of
 * two enrollments racing with one id exactly one is stored, and the other stores nothing.
 *
 * A user who has `MAX_DEVICES_PER_USER` devices is refused before the code is taken, so nothing is
 * written or used up ({@link requireDeviceRoom}); enrollments racing with several codes for the
 * last place are settled after the write ({@link withinDeviceCap}): one past the cap is removed
 * again, before it has a session.
 *
 * Only the known transports of the registration are kept ({@link knownTransports}).
 *
 * @throws CountersignError `invalid_enrollment_code`, `invalid_assertion` (the registration did not
 *   verify; the library's error is its `cause`), `credential_already_registered` (409, audited),
 *   `too_many_devices` (409).
 * @see WebAuthn Level 3 §7.1 (registering a new credential) steps 25–26
 */
export async function verifyEnrollment(deps: Deps, code: string, response: Record<string, unknown>, deviceName: string | undefined): Promise<{ user: UserRecord; device: DeviceRecord }> {
  const { user } = await liveEnrollment(deps, await deps.store.get(keys.enrollment(code)));
  await requireDeviceRoom(deps, user.tenant, user.sub);
  // Taken (GETDEL) only now: a code is used up by the attempt that gets this far, pass or fail.
  const taken = await deps.store.take(keys.enrollment(code));
  const record = taken ? (JSON.parse(taken) as EnrollmentRecord) : null;
  if (!record || record.expires_at <= deps.clock.now()) throw new CountersignError('invalid_enrollment_code', 'This enrollment link is not valid or has expired. Ask for a new one.');
  if (!record.challenge) throw new CountersignError('invalid_enrollment_code', 'Ask for registration options first.');
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: record.challenge,
      expectedOrigin: deps.config.publicUrl,
      expectedRPID: deps.config.rpId,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new CountersignError('invalid_assertion', 'The passkey could not be verified.', { cause: error });
  }
  if (!verification.verified) throw new CountersignError('invalid_assertion', 'The passkey could not be verified.');
  const { credential, aaguid } = verification.registrationInfo;
  if (isoBase64URL.toBuffer(credential.id).byteLength > MAX_CREDENTIAL_ID_BYTES) throw new CountersignError('invalid_assertion', 'The passkey’s credential id is too long.');
  const now = deps.clock.now();
  const device: DeviceRecord = {
    device_id: deps.ids(12, 'dev_'),
    tenant: user.tenant,
    sub: user.sub,
    name: deviceName ?? 'Approver device',
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: knownTransports(credential.transports),
    aaguid,
    created_at: now,
    last_used_at: null,
    credential_claimed: true,
  };
  if (!(await claimCredential(deps.store, device))) {
    await deps.audit.record({ type: 'refused', reason: 'credential_already_registered', tenant: user.tenant, sub: user.sub, credential_id: device.credential_id, channel: 'device', detail: { ceremony: 'enrollment' } });
    throw new CountersignError('credential_already_registered', 'This passkey is already registered. Ask for a new enrollment link and create another passkey.');
  }
  try {
    await saveDevice(deps.store, device);
  } catch (error) {
    // The device was not (wholly) written: its id goes back, so the passkey can be enrolled with a new code.
    await releaseCredential(deps.store, device).catch(() => undefined);
    throw error;
  }
  if (!(await withinDeviceCap(deps, user.tenant, user.sub))) {
    // Another enrollment took the last place meanwhile: this device goes again (its credential id with it).
    await deleteDevice(deps.store, user.tenant, user.sub, device.device_id);
    throw tooManyDevices(deps.config.maxDevicesPerUser);
  }
  await deps.audit.record({ type: 'device_enrolled', tenant: user.tenant, sub: user.sub, device_id: device.device_id, credential_id: device.credential_id, channel: 'device' });
  return { user, device };
}
