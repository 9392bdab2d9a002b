import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import type { Deps } from '../deps.ts';
import { updateDevice, type DeviceRecord } from './device-record.ts';

/**
 * The challenge an assertion's `clientDataJSON` names, read with the library's own parser, so the
 * prompt it answers can be looked up (and taken) before the assertion is verified.
 *
 * @returns the challenge (base64url, 32 bytes), or null, with the parser's error as `cause` when
 *   `clientDataJSON` could not be decoded.
 * @see WebAuthn Level 3 §5.8.1 (CollectedClientData), §7.2 (verifying an authentication assertion)
 */
export function readChallenge(response: Record<string, unknown>): { challenge: string } | { challenge: null; cause?: unknown } {
  const clientDataJSON = (response.response as { clientDataJSON?: unknown } | undefined)?.clientDataJSON;
  if (typeof clientDataJSON !== 'string') return { challenge: null };
  let challenge: unknown;
  try {
    challenge = (decodeClientDataJSON(clientDataJSON) as { challenge?: unknown } | null)?.challenge;
  } catch (cause) {
    return { challenge: null, cause };
  }
  return typeof challenge === 'string' && /^[A-Za-z0-9_-]{43}$/.test(challenge) ? { challenge } : { challenge: null };
}

/** What a person is told for each way a passkey answer fails, by reason code. */
export const PASSKEY_REFUSALS = {
  counter_regression: 'This passkey reported a signature counter that did not increase.',
  invalid_assertion: 'The passkey answer could not be verified.',
} as const;

/** A refused passkey answer: its reason code, what the person is told, and the library's error when it threw one. */
export interface PasskeyRefusal {
  ok: false;
  reason: keyof typeof PASSKEY_REFUSALS;
  description: string;
  cause?: unknown;
}

/**
 * Whether a signature counter may follow the stored one: it must grow, except 0 after 0 (passkeys
 * that sync between devices keep 0). Anything else suggests a cloned authenticator.
 * @see WebAuthn Level 3 §6.1.1 (signature counter considerations), §7.2 step 22
 */
export function counterMayFollow(stored: number, presented: number): boolean {
  return presented > stored || (presented === 0 && stored === 0);
}

/**
 * Checks one passkey assertion against one of the user's devices, and records its use. In this
 * order, so that only the holder of the passkey's private key can move or question its counter:
 *
 * 1. The library verifies the assertion: for this origin and RP ID, over `expectedChallenge`, with
 *    user verification, and its signature under the device's public key. Authenticator data and
 *    client data are parsed by the library only. It is handed a stored counter of 0, because its
 *    `verifyAuthenticationResponse` (version 14) compares the counter BEFORE it checks the
 *    signature and throws on one that did not grow: given the stored counter, it would refuse
 *    anyone's forgery with a low counter as a counter fault, and a forger could raise the
 *    cloned-authenticator alarm (and whatever an operator does about it) at will. Against 0 its
 *    comparison never refuses.
 * 2. Only then is the counter the signature covers compared with the stored one
 *    ({@link counterMayFollow}), inside the compare-and-swap that saves it with the time of use
 *    ({@link updateDevice}): of two assertions carrying one counter value (a cloned
 *    authenticator's and its original's), exactly one passes, and the other is a `counter_regression`.
 *
 * Failures are values; the caller audits and refuses. A forged or malformed assertion changes
 * nothing about the device.
 *
 * @param at - the time of use, epoch ms.
 * @returns the device as saved, or the refusal (`invalid_assertion` with the library's error as
 *   `cause` when it threw one; `counter_regression`; `invalid_assertion` for a device removed meanwhile).
 * @see WebAuthn Level 3 §7.2 (verifying an authentication assertion): step 21 (the signature), then
 *   step 22 (the signature counter), the order kept here
 */
export async function checkPasskey(deps: Pick<Deps, 'config' | 'store'>, device: DeviceRecord, response: Record<string, unknown>, expectedChallenge: string, at: number): Promise<{ ok: true; device: DeviceRecord } | PasskeyRefusal> {
  let counter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge,
      expectedOrigin: deps.config.publicUrl,
      expectedRPID: deps.config.rpId,
      credential: { id: device.credential_id, publicKey: Buffer.from(device.public_key, 'base64url'), counter: 0, transports: device.transports },
      requireUserVerification: true,
    });
    if (!result.verified || !result.authenticationInfo.userVerified) return refusal('invalid_assertion');
    counter = result.authenticationInfo.newCounter;
  } catch (cause) {
    // Malformed or mismatched (origin, RP ID, challenge, flags, encoding): the library throws.
    return refusal('invalid_assertion', cause);
  }
  const update = await updateDevice(deps.store, device, (current) => (counterMayFollow(current.counter, counter) ? { ...current, counter, last_used_at: at } : null));
  if (update.status === 'written') return { ok: true, device: update.device };
  if (update.status === 'refused') return refusal('counter_regression');
  return { ok: false, reason: 'invalid_assertion', description: 'This device has been removed from your account.' };
}

function refusal(reason: keyof typeof PASSKEY_REFUSALS, cause?: unknown): PasskeyRefusal {
  return { ok: false, reason, description: PASSKEY_REFUSALS[reason], ...(cause === undefined ? {} : { cause }) };
}
