import { CountersignError } from '@countersign/shared';
import { jwtVerify, errors as joseErrors } from 'jose';
import type { KeyRing } from './key-ring.ts';
import { SIGNING_ALGORITHMS } from './key-ring.ts';
import { approvalAudience, type ApprovalClaims } from './sign-tokens.ts';

const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

/**
 * Verifies an approval token: signature with this server's key, algorithm from an explicit list
 * (no `none`, no HMAC), `typ: at+jwt`, issuer, audience and expiry against the injected clock.
 *
 * @param nowMs - the injected clock's epoch milliseconds.
 * @returns the token's claims.
 * @throws CountersignError `invalid_token` (401, with `WWW-Authenticate`) for any failure;
 *   the reason stays in the server's audit, not in the response.
 * @see RFC 9068 §4 (validating JWT access tokens), RFC 8725 §3.1 (algorithm verification)
 */
export async function verifyApprovalToken(ring: KeyRing, issuer: string, token: string, nowMs: number): Promise<ApprovalClaims & { exp: number; iat: number }> {
  try {
    const { payload } = await jwtVerify(token, ring.publicKey, {
      algorithms: [...SIGNING_ALGORITHMS],
      issuer,
      audience: approvalAudience(issuer),
      typ: 'at+jwt',
      currentDate: new Date(nowMs),
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'details_hash', 'auth_req_id', 'tenant'],
    });
    return payload as unknown as ApprovalClaims & { exp: number; iat: number };
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    throw new CountersignError('invalid_token', expired ? 'The approval token has expired.' : 'The approval token is not valid.', {
      headers: { 'WWW-Authenticate': BEARER_CHALLENGE },
      cause: error,
    });
  }
}
