import type { CLIENT_SIGNING_ALGS } from '@countersign/shared';
import { createLocalJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { createHash } from 'node:crypto';
import type { RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { ClientRecord } from './client-record.ts';

/**
 * How far a client's clock may run ahead of or behind ours, in seconds, for `exp`, `nbf` and
 * `iat`. Clients here are servers with synchronised clocks; a short leeway keeps a stolen JWT's
 * extra life short.
 * @see RFC 7519 §4.1.4 and §4.1.5 ("a small leeway, usually no more than a few minutes")
 */
export const CLIENT_JWT_LEEWAY_SECONDS = 10;

/** A JWS algorithm a client may sign with: asymmetric only. @see FAPI-CIBA §5.2.2, RFC 7518 §3.1 */
export type ClientSigningAlg = (typeof CLIENT_SIGNING_ALGS)[number];

/** Options of {@link verifyClientJwt}: what jose checks, plus our clock. @see RFC 7519 §4.1 (registered claims) */
export interface ClientJwtOptions {
  /** The accepted algorithms: never `none`, never an HMAC one. */
  algorithms: readonly ClientSigningAlg[];
  /** Accepted `aud` values; the JWT's `aud` must hold one of them. */
  audience: string[];
  issuer: string;
  subject?: string;
  requiredClaims: string[];
  /** Epoch ms. */
  nowMs: number;
}

/**
 * Verifies a JWT a client signed, with the keys the client registered (a local JWK Set: nothing
 * is fetched). When several registered keys fit the header (no `kid`), each is tried in turn.
 *
 * @returns the verified claims.
 * @throws a jose error (`err.code`, e.g. `ERR_JWT_EXPIRED`, `ERR_JOSE_ALG_NOT_ALLOWED`) for every
 *   refusal; the caller decides which OAuth error it becomes.
 * @see RFC 7515 §5.2 (validation), RFC 7517 §5 (JWK Set), RFC 7519 §7.2
 */
export async function verifyClientJwt(jwt: string, client: ClientRecord, options: ClientJwtOptions): Promise<JWTPayload> {
  if (!client.jwks) throw new errors.JWKSNoMatchingKey('The client registered no keys.');
  const jwks = createLocalJWKSet(client.jwks);
  const verify: JWTVerifyOptions = {
    algorithms: [...options.algorithms],
    audience: options.audience,
    issuer: options.issuer,
    ...(options.subject !== undefined ? { subject: options.subject } : {}),
    requiredClaims: options.requiredClaims,
    currentDate: new Date(options.nowMs),
    clockTolerance: CLIENT_JWT_LEEWAY_SECONDS,
  };
  try {
    return (await jwtVerify(jwt, jwks, verify)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    // jose hands back the candidate keys; the first one the signature verifies with wins.
    for await (const key of error as errors.JWKSMultipleMatchingKeys & AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(jwt, key, verify)).payload;
      } catch (next) {
        if (!(next instanceof errors.JWSSignatureVerificationFailed)) throw next;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/**
 * Records a client JWT's `jti` as used, once: SET NX with a TTL that outlives the JWT's
 * acceptance window (`exp` plus the leeway), so a replay inside that window finds it.
 *
 * @param expSeconds - the JWT's `exp` (NumericDate, seconds).
 * @returns true the first time, false for a replay.
 * @see RFC 7523 §3 (item 7: "the authorization server MAY ensure that JWTs are not replayed"),
 *   CIBA Core 1.0 §7.1.1 (`jti`), FAPI-CIBA §5.2.2
 */
export async function useJtiOnce(store: RecordStore, use: 'assertion' | 'request', clientId: string, jti: string, expSeconds: number, nowMs: number): Promise<boolean> {
  const ttlSeconds = Math.max(1, Math.ceil(expSeconds - nowMs / 1000) + CLIENT_JWT_LEEWAY_SECONDS + 1);
  const jtiHash = createHash('sha256').update(jti, 'utf8').digest('base64url');
  return store.set(keys.usedJti(clientId, use, jtiHash), '1', { onlyIfAbsent: true, ttlSeconds });
}
