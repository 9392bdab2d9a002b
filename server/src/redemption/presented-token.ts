import { CountersignError, tenantName } from '@countersign/shared';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Deps } from '../deps.ts';
import { equalInConstantTime } from '../runtime/index.ts';
import { isRequestId, mandateOf } from '../requests/index.ts';
import type { Fields } from '../store/index.ts';
import { approvalAudience, SIGNING_ALGORITHMS, TOKEN_HASH_FIELD, tokenHash, verifyApprovalToken, type ApprovalClaims } from '../tokens/index.ts';

/**
 * An approval token as presented to `/redeem`, read but not yet trusted: its claims say which
 * record to look at, and only that record's `token_hash` can say the token is the one issued
 * for it (see `tokenHash`). Nothing the claims say is answered before then.
 */
export interface PresentedToken {
  /** The compact JWS as presented. */
  readonly text: string;
  /** What the token says; untrusted until {@link PresentedToken.authentic}. */
  readonly claims: ApprovalClaims;
  /** base64url(SHA-256(text)). */
  readonly hash: string;
  /**
   * Set once the token is known to be the one issued for the record its claims name: the record's
   * `token_hash` is this token's, or (a token issued before hashes were kept) its signature
   * verified. Until then its claims name no approval a refusal may be filed under.
   */
  authentic: boolean;
  /**
   * Set when the record was bound to its token before hashes were kept and this token's signature
   * verified: its swaps guard the `jti` instead (see `PresentedTokenGuard`).
   */
  legacy: boolean;
}

/** 401 `invalid_token`, with its challenge: the approval is unknown, or no longer redeemable. @see RFC 6750 §3.1 */
export function invalidToken(description: string): CountersignError {
  return new CountersignError('invalid_token', description, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

const REQUIRED_CLAIMS = ['jti', 'sub', 'client_id', 'details_hash', 'auth_req_id', 'tenant', 'scope'] as const;

/**
 * Reads an approval token presented to `/redeem` without verifying its signature: the header must
 * name an algorithm of the explicit list and `typ: at+jwt`, the issuer and audience must be this
 * server's redemption endpoint, every claim a redemption reads must be there with its type, and
 * the tenant and `auth_req_id` must be well-formed (they become a store key). Expiry is not read:
 * the approval's own deadline is, inside the swap.
 *
 * @throws CountersignError `invalid_token` (401) for a text that cannot be an approval token of this server.
 * @see RFC 9068 §4, RFC 8725 §3.1
 */
export function readPresentedToken(issuer: string, text: string): PresentedToken {
  let claims: Record<string, unknown>;
  try {
    const header = decodeProtectedHeader(text);
    if (!(SIGNING_ALGORITHMS as readonly unknown[]).includes(header.alg) || header.typ !== 'at+jwt') throw new Error('header');
    claims = decodeJwt(text);
  } catch {
    throw invalidToken('The approval token is not valid.');
  }
  const wellFormed =
    claims.iss === issuer &&
    (claims.aud === approvalAudience(issuer) || (Array.isArray(claims.aud) && claims.aud.includes(approvalAudience(issuer)))) &&
    REQUIRED_CLAIMS.every((name) => typeof claims[name] === 'string') &&
    Array.isArray(claims.authorization_details) &&
    tenantName.safeParse(claims.tenant).success &&
    isRequestId(claims.auth_req_id as string);
  if (!wellFormed) throw invalidToken('The approval token is not valid.');
  return { text, claims: claims as unknown as ApprovalClaims, hash: tokenHash(text), authentic: false, legacy: false };
}

/**
 * Whether the token's signature verifies (this server's key, the explicit algorithms, issuer,
 * audience, expiry; for a mandate's token, expiry less the grace period, so that the spend's own
 * check says `mandate_expired`). Only on the paths where no stored hash can say it: a record bound
 * before hashes were kept, or no record at all.
 */
async function signatureVerifies(deps: Pick<Deps, 'clock' | 'config' | 'keyRing'>, token: PresentedToken): Promise<boolean> {
  const now = deps.clock.now();
  const verify = (at: number) => verifyApprovalToken(deps.keyRing, deps.config.publicUrl, token.text, at).catch(() => null);
  const verified = (await verify(now)) ?? (await verify(now - deps.config.graceSeconds * 1000));
  if (!verified || verified.jti !== token.claims.jti) return false;
  return verified.exp * 1000 > now || mandateOf(verified.authorization_details) !== null;
}

/**
 * Settles whether `token` is the one issued for the record `fields` (as read, or as a failed swap
 * answered it), and marks it authentic when it is:
 * - the record's `token_hash` is the token's hash;
 * - or the record holds a `token_jti` and no hash (bound before hashes were kept), the `jti` is the
 *   token's and its signature verifies: then `legacy` is set too, and the caller swaps again
 *   guarding the `jti`;
 * - or there is no record (it ran out, or a store lost it) and the signature verifies: still
 *   `invalid_token`, but filed under the approval the token names.
 *
 * @throws CountersignError `invalid_token` (401) when the record is gone or is not this token's.
 */
export async function proveToken(deps: Pick<Deps, 'clock' | 'config' | 'keyRing'>, token: PresentedToken, fields: Fields | null): Promise<void> {
  if (token.authentic) return;
  if (!fields?.auth_req_id) {
    if (await signatureVerifies(deps, token)) token.authentic = true;
    throw invalidToken('The approval no longer exists.');
  }
  const stored = fields[TOKEN_HASH_FIELD];
  if (stored) {
    if (!equalInConstantTime(stored, token.hash)) throw invalidToken('The token is not the one issued for this approval.');
    token.authentic = true;
    return;
  }
  if (!fields.token_jti) throw invalidToken('The approval is no longer redeemable.');
  if (fields.token_jti !== token.claims.jti || !(await signatureVerifies(deps, token))) throw invalidToken('The token is not the one issued for this approval.');
  token.authentic = true;
  token.legacy = true;
}
