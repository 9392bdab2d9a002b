import { sha256Base64url } from '../runtime/index.ts';

/**
 * The field of a request's record that holds {@link tokenHash} of the approval token issued for it,
 * written by the same compare-and-swap that binds the token (`Lifecycle.issueToken`).
 */
export const TOKEN_HASH_FIELD = 'token_hash';

/**
 * base64url(SHA-256(token)) of an approval token, exactly as issued (its compact JWS text).
 *
 * Kept with the request so that `/redeem` recognises the token it issued by comparing this hash
 * inside the redemption's compare-and-swap instead of verifying the token's ES256 signature: the
 * token is 256 bits of signature over claims this server wrote, so a presented text whose hash is
 * the stored one is that token, claims and all. The token stays a signed RFC 9068 JWT for anyone
 * else who verifies it. Not a secret to keep from logs any more than the jti is: it does not give
 * the token back.
 */
export function tokenHash(token: string): string {
  return sha256Base64url(token);
}
