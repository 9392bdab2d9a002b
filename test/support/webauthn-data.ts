/**
 * The bytes a WebAuthn authenticator and its browser put together for the soft authenticator
 * (test/support/soft-authenticator.ts): client data, the head of authenticator data, the COSE
 * public key. Built from the specification, sharing no code with the verifier.
 * @see WebAuthn Level 3 §5.8.1, §6.1; RFC 9052/9053 (COSE EC2 keys)
 */
import { createHash, type KeyObject } from 'node:crypto';
import { cbor, type CborValue, concat } from './cbor.ts';

/** Authenticator data flags (WebAuthn L3 §6.1). */
export const FLAG = { UP: 0x01, UV: 0x04, AT: 0x40 } as const;
/** COSE algorithm ES256 (RFC 9053 §2.1). */
export const ES256 = -7;

/** CollectedClientData (WebAuthn L3 §5.8.1), its members in the order a browser writes them. */
export function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian): the fixed head of authenticator data (WebAuthn L3 §6.1). */
export function authenticatorDataHead(rpId: string, flags: number, signCount: number): Uint8Array {
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, signCount >>> 0);
  return concat(sha256(new TextEncoder().encode(rpId)), Uint8Array.of(flags), count);
}

/** The public key as a COSE_Key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} (RFC 9053 §7.1.1). */
export function coseEc2PublicKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x || !jwk.y) throw new Error('not an EC public key');
  return cbor(
    new Map<number, CborValue>([
      [1, 2],
      [3, ES256],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y, 'base64url'))],
    ]),
  );
}

/** SHA-256 of `bytes`. */
export function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

/** `bytes` in base64url without padding, as WebAuthn's JSON forms carry them. */
export function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
