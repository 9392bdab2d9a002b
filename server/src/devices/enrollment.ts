import { CountersignError } from '@countersign/shared';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { findUser, type UserRecord } from '../users/index.ts';
import { listDevices, saveDevice, type DeviceRecord } from './device-record.ts';

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
 * user verification required, no attestation, excluding the user's existing passkeys.
 * @throws CountersignError `invalid_enrollment_code`.
 * @see WebAuthn Level 3 §5.4 (PublicKeyCredentialCreationOptions)
 */
export async function enrollmentOptions(deps: Deps, code: string) {
  const { record, user } = await liveEnrollment(deps, await deps.store.get(keys.enrollment(code)));
  const existing = await listDevices(deps.store, user.tenant, user.sub);
  const options = await generateRegistrationOptions({
    rpName: deps.config.rpName,
    rpID: deps.config.rpId,
    userName: user.sub,
    userDisplayName: user.display_name,
    attestationType: 'none',
    excludeCredentials: existing.map((device) => ({ id: device.credential_id, transports: device.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    timeout: 120_000,
  });
  const ttl = secondsUntil(record.expires_at, deps.clock.now());
  await deps.store.set(keys.enrollment(code), JSON.stringify({ ...record, challenge: options.challenge }), { ttlSeconds: Math.max(ttl, 1) });
  return options;
}

/**
 * Verifies the passkey created for an enrollment and registers the device. The code is consumed
 * by this call whatever its result (GETDEL), so a code can register at most one device.
 * @throws CountersignError `invalid_enrollment_code`, `invalid_assertion` (the registration did not verify).
 * @see WebAuthn Level 3 §7.1 (registering a new credential)
 */
export async function verifyEnrollment(deps: Deps, code: string, response: Record<string, unknown>, deviceName: string | undefined): Promise<{ user: UserRecord; device: DeviceRecord }> {
  const { record, user } = await liveEnrollment(deps, await deps.store.take(keys.enrollment(code)));
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
  const now = deps.clock.now();
  const device: DeviceRecord = {
    device_id: deps.ids(12, 'dev_'),
    tenant: user.tenant,
    sub: user.sub,
    name: deviceName ?? 'Approver device',
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
    aaguid,
    created_at: now,
    last_used_at: null,
  };
  await saveDevice(deps.store, device);
  await deps.audit.record({ type: 'device_enrolled', tenant: user.tenant, sub: user.sub, device_id: device.device_id, credential_id: device.credential_id, channel: 'device' });
  return { user, device };
}
