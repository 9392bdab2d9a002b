import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { keys, type RecordStore } from '../store/index.ts';

/** The algorithms this server signs and accepts: an explicit list, never the token's own say-so. */
export const SIGNING_ALGORITHMS = ['ES256'] as const;

/**
 * The server's ES256 signing key, imported once at start. Holds the private key for signing and
 * the public JWK set for `/jwks.json` and for verifying tokens at redemption.
 */
export class KeyRing {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly #publicJwk: JWK;

  private constructor(kid: string, privateKey: CryptoKey, publicKey: CryptoKey, publicJwk: JWK) {
    this.kid = kid;
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    this.#publicJwk = publicJwk;
  }

  /** The public JWK Set (RFC 7517 §5), served at `/jwks.json`. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.#publicJwk] };
  }

  /**
   * Loads the signing key: `SIGNING_KEY` (a private EC P-256 JWK) when given; otherwise, outside
   * production, one generated once and kept in the store, so that every instance sharing the store
   * signs with the same key and tokens survive a restart with Redis.
   * @throws Error in production without a key, or for a key that is not a private P-256 JWK.
   */
  static async load(options: { store: RecordStore; signingKey: string | undefined; production: boolean }): Promise<KeyRing> {
    let jwk: JWK;
    if (options.signingKey) {
      jwk = JSON.parse(options.signingKey) as JWK;
    } else if (options.production) {
      throw new Error('invalid configuration: SIGNING_KEY is required in production');
    } else {
      const fresh = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
      // SET NX then re-read: two instances starting together end up with the same key.
      await options.store.set(keys.config('signing-key'), JSON.stringify(fresh), { onlyIfAbsent: true });
      jwk = JSON.parse((await options.store.get(keys.config('signing-key')))!) as JWK;
    }
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d) throw new Error('invalid configuration: SIGNING_KEY must be a private EC P-256 JWK');
    const { d: _private, ...publicPart } = jwk;
    const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart));
    const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: publicPart.x, y: publicPart.y, kid, alg: 'ES256', use: 'sig' };
    const privateKey = (await importJWK({ ...jwk, alg: 'ES256' }, 'ES256')) as CryptoKey;
    const publicKey = (await importJWK(publicJwk, 'ES256')) as CryptoKey;
    return new KeyRing(kid, privateKey, publicKey, publicJwk);
  }
}
