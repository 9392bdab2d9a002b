import { importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';

/** The `client_assertion_type` of a JWT client assertion. @see RFC 7523 §2.2 */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The algorithms Countersign accepts for `private_key_jwt`: asymmetric only. @see FAPI-CIBA §5.2.2 */
export type ClientAssertionAlg = 'ES256' | 'PS256';

/**
 * Seconds an assertion lives, `exp − iat`. Every call signs a fresh one, so a minute (what
 * openid-client gives) covers the trip to the server and nothing more; the server refuses more
 * than 300 s.
 * @see RFC 7523 §3 item 4
 */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 60;

/** A private key ready to sign assertions, with its algorithm and `kid`. */
export interface AssertionKey {
  key: CryptoKey;
  alg: ClientAssertionAlg;
  kid?: string;
}

/** What signs one assertion: the key, the claims' inputs and the clock. */
export interface AssertionInput {
  clientId: string;
  /** The `aud`: the issuer, which the server accepts at every endpoint. */
  audience: string;
  /** Epoch milliseconds. */
  nowMs: number;
  /** Unique per assertion: the server uses each `jti` once. */
  jti: string;
}

/**
 * Signs one `private_key_jwt` client assertion: header `{alg, kid?}`, claims `iss` = `sub` =
 * client id, `aud`, `iat`, `exp` = `iat` + {@link CLIENT_ASSERTION_LIFETIME_SECONDS}, `jti`.
 *
 * @returns the compact JWS.
 * @see RFC 7523 §2.2 and §3, OpenID Connect Core 1.0 §9
 */
export async function signClientAssertion(signing: AssertionKey, input: AssertionInput): Promise<string> {
  const iat = Math.floor(input.nowMs / 1000);
  return new SignJWT({ jti: input.jti })
    .setProtectedHeader({ alg: signing.alg, ...(signing.kid === undefined ? {} : { kid: signing.kid }) })
    .setIssuer(input.clientId)
    .setSubject(input.clientId)
    .setAudience(input.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CLIENT_ASSERTION_LIFETIME_SECONDS)
    .sign(signing.key);
}

/** A private JWK or CryptoKey as given, with the algorithm and `kid` the caller named, if any. */
export interface AssertionKeyOptions {
  privateKey: CryptoKey | JWK;
  alg?: ClientAssertionAlg;
  kid?: string;
}

const ALGS: readonly string[] = ['ES256', 'PS256'] satisfies ClientAssertionAlg[];

/** Whether `value` is a JWK (an object with `kty`) rather than a CryptoKey. */
function isJwk(value: CryptoKey | JWK): value is JWK {
  return typeof (value as JWK).kty === 'string';
}

/** The algorithm a key can sign with: ES256 for P-256, PS256 for RSA; undefined for any other key. */
function algOfKey(privateKey: CryptoKey | JWK): ClientAssertionAlg | undefined {
  if (isJwk(privateKey)) {
    if (privateKey.kty === 'EC' && privateKey.crv === 'P-256') return 'ES256';
    if (privateKey.kty === 'RSA') return 'PS256';
    return undefined;
  }
  const algorithm = privateKey.algorithm as { name?: string; namedCurve?: string };
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256') return 'ES256';
  // WebCrypto ties an RSA key to one scheme: only an RSA-PSS key signs PS256.
  if (algorithm.name === 'RSA-PSS') return 'PS256';
  return undefined;
}

/**
 * Checks a `private_key_jwt` key before the first call and settles its algorithm: `alg` when given,
 * else the JWK's own `alg`, else the one the key type implies (EC P-256 → ES256, RSA → PS256).
 * The messages name what is wrong with the key, never any of its material.
 *
 * @returns the algorithm and `kid` (`kid` option, else the JWK's `kid`).
 * @throws TypeError for a public key, a key that cannot sign, an algorithm other than ES256 or
 *   PS256, or an algorithm the key does not fit.
 */
export function checkAssertionKey(options: AssertionKeyOptions): { alg: ClientAssertionAlg; kid?: string } {
  const { privateKey } = options;
  if (privateKey === null || typeof privateKey !== 'object') throw new TypeError('private_key_jwt needs privateKey: a private CryptoKey or JWK');
  if (isJwk(privateKey)) {
    if (typeof privateKey.d !== 'string') throw new TypeError('private_key_jwt needs the private JWK (with "d"), not the public one');
  } else if (privateKey.type !== 'private' || !privateKey.usages.includes('sign')) {
    throw new TypeError('private_key_jwt needs a private CryptoKey usable for "sign"');
  }
  const jwkAlg = isJwk(privateKey) ? privateKey.alg : undefined;
  const alg = options.alg ?? jwkAlg ?? algOfKey(privateKey);
  if (alg === undefined || !ALGS.includes(alg)) throw new TypeError('private_key_jwt signs with ES256 (EC P-256) or PS256 (RSA) only');
  if ((jwkAlg !== undefined && jwkAlg !== alg) || algOfKey(privateKey) !== alg) throw new TypeError(`the private key does not fit alg ${alg}`);
  const kid = options.kid ?? (isJwk(privateKey) ? privateKey.kid : undefined);
  return { alg: alg as ClientAssertionAlg, ...(kid === undefined ? {} : { kid }) };
}

/**
 * Makes the signing key from {@link AssertionKeyOptions}: a CryptoKey as it is, a JWK imported
 * (non-extractable) for the settled algorithm.
 *
 * @throws TypeError as {@link checkAssertionKey}, or when the JWK does not import.
 */
export async function importAssertionKey(options: AssertionKeyOptions): Promise<AssertionKey> {
  const settled = checkAssertionKey(options);
  const { privateKey } = options;
  if (!isJwk(privateKey)) return { key: privateKey, ...settled };
  try {
    const key = await importJWK(privateKey, settled.alg, { extractable: false });
    return { key: key as CryptoKey, ...settled };
  } catch (cause) {
    throw new TypeError(`the private JWK does not import for ${settled.alg}`, { cause });
  }
}
