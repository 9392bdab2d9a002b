import type { AuthorizationDetails } from '@countersign/shared';
import { base64url } from '@countersign/shared';
import { SignJWT } from 'jose';
import { createHash } from 'node:crypto';
import type { KeyRing } from './key-ring.ts';

/** The audience of approval tokens: the redemption endpoint of this issuer. */
export function approvalAudience(issuer: string): string {
  return `${issuer}/redeem`;
}

/** What an approval token says (RFC 9068 §2.2 plus RFC 9396 and Countersign claims). */
export interface ApprovalClaims {
  sub: string;
  client_id: string;
  tenant: string;
  scope: string;
  auth_req_id: string;
  authorization_details: AuthorizationDetails;
  /** base64url(SHA-256(JCS(authorization_details))), docs/design.md guarantee 3. */
  details_hash: string;
  jti: string;
}

/**
 * Signs an approval token: an RFC 9068 JWT access token (`typ: at+jwt`, ES256), single-use at
 * redemption.
 * @param times - `iat` and `exp` in epoch seconds.
 * @see RFC 9068 §2, RFC 9396 §9
 */
export async function signApprovalToken(ring: KeyRing, issuer: string, claims: ApprovalClaims, times: { iat: number; exp: number }): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: ring.kid }).setIssuer(issuer).setAudience(approvalAudience(issuer)).setIssuedAt(times.iat).setExpirationTime(times.exp).sign(ring.privateKey);
}

/** `at_hash` (OpenID Connect Core §3.1.3.6): left half of SHA-256 of the access token, base64url. */
export function atHash(accessToken: string): string {
  return base64url(createHash('sha256').update(accessToken).digest().subarray(0, 16));
}

/**
 * Signs the ID token of a CIBA token response (CIBA Core §10.1.1): the user's `sub`, `aud` the
 * client, `auth_time` the approval, `at_hash`, and the `auth_req_id` claim.
 * @param times - epoch seconds.
 */
export async function signIdToken(ring: KeyRing, issuer: string, input: { sub: string; client_id: string; auth_req_id: string; access_token: string }, times: { iat: number; exp: number; auth_time: number }): Promise<string> {
  return new SignJWT({
    auth_time: times.auth_time,
    at_hash: atHash(input.access_token),
    'urn:openid:params:jwt:claim:auth_req_id': input.auth_req_id,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: ring.kid })
    .setIssuer(issuer)
    .setSubject(input.sub)
    .setAudience(input.client_id)
    .setIssuedAt(times.iat)
    .setExpirationTime(times.exp)
    .sign(ring.privateKey);
}
