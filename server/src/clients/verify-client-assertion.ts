import { errors } from 'jose';
import type { ClientRecord } from './client-record.ts';
import { CLIENT_JWT_LEEWAY_SECONDS, verifyClientJwt, type ClientSigningAlg } from './client-jwt.ts';

/** The `client_assertion_type` of a JWT client assertion. @see RFC 7523 §2.2 */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The longest life an assertion may claim, `exp − iat` (or `exp − now` without `iat`), in seconds.
 * RFC 7523 leaves the bound to the server; a client makes a fresh assertion for every call
 * (openid-client gives each 60 s), so five minutes allows for slow clocks and nothing more, and
 * bounds how long each used `jti` must be remembered.
 * @see RFC 7523 §3 item 4 ("the authorization server MAY reject JWTs with an exp claim value that is
 *   unreasonably far in the future")
 */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/** Algorithms accepted for `private_key_jwt`. @see FAPI-CIBA §5.2.2, FAPI 1.0 Part 2 §8.6 */
const ASSERTION_ALGS: readonly ClientSigningAlg[] = ['ES256', 'PS256'];

/** Options of {@link verifyClientAssertion}. @see RFC 7523 §3 item 3 (`aud`), CIBA Core 1.0 §7.1 */
export interface AssertionCheck {
  /** Accepted `aud` values: the issuer, the token endpoint, the endpoint being called. */
  audience: string[];
  /** Epoch ms. */
  nowMs: number;
}

/** The answer of {@link verifyClientAssertion}: expected failures are values, named for the log. @see RFC 7523 §3.2 */
export type AssertionResult = { verified: true; jti: string; exp: number } | { verified: false; reason: string };

/** A stable reason word for a jose error, for the log only (the client is told nothing more). */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTClaimValidationFailed) return `claim_${error.claim}_${error.reason}`;
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'alg_not_allowed';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  return 'malformed';
}

/**
 * Verifies a `private_key_jwt` client assertion with the client's registered keys: ES256 or
 * PS256 only; `iss` = `sub` = `client_id`; `aud` holding an accepted value; `exp` required and
 * not passed; `iat`, when present, not in the future; a life of at most
 * {@link MAX_ASSERTION_LIFETIME_SECONDS}; `jti` required. Pure: recording the `jti` as used is
 * the caller's step, after every check has passed.
 *
 * @returns `{verified: true, jti, exp}` or `{verified: false, reason}`; never throws for a bad assertion.
 * @see RFC 7523 §3 (JWT format and processing), §2.2 (client authentication); OpenID Connect
 *   Core 1.0 §9 (`private_key_jwt`); CIBA Core 1.0 §7.1 (accepted audiences)
 */
export async function verifyClientAssertion(assertion: string, client: ClientRecord, check: AssertionCheck): Promise<AssertionResult> {
  let claims;
  try {
    claims = await verifyClientJwt(assertion, client, {
      algorithms: ASSERTION_ALGS,
      audience: check.audience,
      issuer: client.client_id,
      subject: client.client_id,
      requiredClaims: ['exp', 'jti'],
      nowMs: check.nowMs,
    });
  } catch (error) {
    return { verified: false, reason: reasonOf(error) };
  }
  const now = check.nowMs / 1000;
  const { exp, iat, jti } = claims;
  if (typeof exp !== 'number') return { verified: false, reason: 'claim_exp_missing' };
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return { verified: false, reason: 'claim_jti_invalid' };
  if (iat !== undefined && (typeof iat !== 'number' || iat > now + CLIENT_JWT_LEEWAY_SECONDS)) return { verified: false, reason: 'claim_iat_in_future' };
  if (exp - (iat ?? now) > MAX_ASSERTION_LIFETIME_SECONDS) return { verified: false, reason: 'lifetime_too_long' };
  return { verified: true, jti, exp };
}
