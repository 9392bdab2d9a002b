import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import type { DeviceRecord } from './device-record.ts';

/** The challenge an assertion's `clientDataJSON` names (base64url, 32 bytes), or null. */
export function clientChallenge(response: Record<string, unknown>): string | null {
  try {
    const inner = response.response as { clientDataJSON?: unknown } | undefined;
    if (typeof inner?.clientDataJSON !== 'string') return null;
    const clientData = JSON.parse(Buffer.from(inner.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' && /^[A-Za-z0-9_-]{43}$/.test(clientData.challenge) ? clientData.challenge : null;
  } catch {
    return null;
  }
}

/** The signature counter in the authenticator data (bytes 33–36, big-endian; WebAuthn Level 3 §6.1). */
export function signCount(response: Record<string, unknown>): number | null {
  const data = (response.response as { authenticatorData?: unknown } | undefined)?.authenticatorData;
  if (typeof data !== 'string') return null;
  const bytes = Buffer.from(data, 'base64url');
  return bytes.length >= 37 ? bytes.readUInt32BE(33) : null;
}

/** What a person is told for each way a passkey answer fails. */
export const PASSKEY_REFUSALS = {
  counter_regression: 'This passkey reported a signature counter that did not increase.',
  invalid_assertion: 'The passkey answer could not be verified.',
} as const;

/**
 * Checks one passkey assertion against one of the user's devices: the signature counter must grow
 * (0 after 0 is accepted: synced passkeys keep 0; anything else that does not grow suggests a
 * cloned authenticator), and the assertion must verify for this origin and RP ID, with user
 * verification, over `expectedChallenge`. Failures are values; the caller audits and refuses.
 *
 * @returns the new counter, or the reason code of the refusal.
 * @see WebAuthn Level 3 §7.2 (verifying an authentication assertion) steps 21–22
 */
export async function checkPasskey(
  deps: Pick<Deps, 'config'>,
  device: DeviceRecord,
  response: Record<string, unknown>,
  expectedChallenge: string,
): Promise<{ ok: true; counter: number } | { ok: false; reason: keyof typeof PASSKEY_REFUSALS }> {
  const counter = signCount(response);
  if (counter === null || ((counter > 0 || device.counter > 0) && counter <= device.counter)) return { ok: false, reason: 'counter_regression' };
  try {
    const result = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: deps.config.publicUrl,
      expectedRPID: deps.config.rpId,
      credential: { id: device.credential_id, publicKey: Buffer.from(device.public_key, 'base64url'), counter: device.counter, transports: device.transports },
      requireUserVerification: true,
    });
    if (result.verified && result.authenticationInfo.userVerified) return { ok: true, counter };
  } catch {
    // A malformed or mismatched assertion: the library throws; to the caller it is just not verified.
  }
  return { ok: false, reason: 'invalid_assertion' };
}
