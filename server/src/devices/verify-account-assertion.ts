import { CountersignError } from '@countersign/shared';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import { checkPasskey, readChallenge } from './check-passkey.ts';
import { listDevices, type DeviceRecord } from './device-record.ts';
import type { DeviceSession } from './session.ts';
import { credentialDescriptor } from './transports.ts';

/** What an account prompt is for; only adding a device needs one today. */
export type AccountPurpose = 'add_device';

/** Seconds an account prompt stays usable. */
const PROMPT_SECONDS = 120;

/** String (single use): an account prompt's challenge → `{sub, purpose}`. In the tenant's tag, like decision challenges. */
function accountChallengeKey(tenant: string, challenge: string): string {
  return `achl:{${tenant}}:${challenge}`;
}

type PromptDeps = Pick<Deps, 'store' | 'config'>;

/**
 * WebAuthn authentication options for a change to the person's own account (`purpose`): a fresh
 * random challenge, kept single-use for two minutes, answerable only by this user's passkeys,
 * user verification required. A device session alone must not be enough to add a passkey: that
 * would turn a stolen cookie into a lasting way to approve.
 *
 * @see WebAuthn Level 3 §5.5, §13.4.3 (challenges)
 */
export async function accountOptions(deps: PromptDeps, session: DeviceSession, purpose: AccountPurpose) {
  const devices = await listDevices(deps.store, session.tenant, session.sub);
  const options = await generateAuthenticationOptions({
    rpID: deps.config.rpId,
    userVerification: 'required',
    allowCredentials: devices.map(credentialDescriptor),
    timeout: PROMPT_SECONDS * 1000,
  });
  await deps.store.set(accountChallengeKey(session.tenant, options.challenge), JSON.stringify({ sub: session.sub, purpose }), { ttlSeconds: PROMPT_SECONDS });
  return options;
}

/**
 * Verifies the passkey's answer to an {@link accountOptions} prompt: the challenge is taken
 * (GETDEL) first, so it is used once, pass or fail; it must have been issued to this user for this
 * purpose; the assertion must verify with user verification, for this origin and RP ID, by one of
 * this user's passkeys; only then is its signature counter compared and saved
 * ({@link checkPasskey}), so a forged answer is `invalid_assertion` whatever its counter. The
 * library's error, when it threw one, is the refusal's `cause`.
 *
 * @returns the device whose passkey answered, as saved.
 * @throws CountersignError `invalid_assertion`, `counter_regression`.
 */
export async function verifyAccountAssertion(deps: Pick<Deps, 'store' | 'config' | 'clock' | 'audit'>, session: DeviceSession, purpose: AccountPurpose, response: Record<string, unknown>): Promise<DeviceRecord> {
  const read = readChallenge(response);
  const challenge = read.challenge;
  const taken = challenge ? await deps.store.take(accountChallengeKey(session.tenant, challenge)) : null;
  const record = taken ? (JSON.parse(taken) as { sub: string; purpose: AccountPurpose }) : null;
  const device = (await listDevices(deps.store, session.tenant, session.sub)).find((candidate) => candidate.credential_id === response.id);
  const refuse = async (reason: 'invalid_assertion' | 'counter_regression', description: string, cause?: unknown) => {
    await deps.audit.record({ type: 'refused', reason, tenant: session.tenant, sub: session.sub, device_id: device?.device_id ?? session.device_id, ...(device ? { credential_id: device.credential_id } : {}), channel: 'device', detail: { purpose } });
    return new CountersignError(reason, description, cause === undefined ? {} : { cause });
  };
  if (read.challenge === null && read.cause !== undefined) throw await refuse('invalid_assertion', 'The passkey answer could not be read.', read.cause);
  if (!challenge || !record || record.sub !== session.sub || record.purpose !== purpose || !device) {
    throw await refuse('invalid_assertion', 'This passkey prompt is not valid any more. Try again.');
  }
  const check = await checkPasskey(deps, device, response, challenge, deps.clock.now());
  if (!check.ok) throw await refuse(check.reason, check.description, check.cause);
  return check.device;
}
