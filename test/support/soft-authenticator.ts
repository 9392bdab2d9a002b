/**
 * A software WebAuthn authenticator for tests without a browser: one P-256 passkey, made and used
 * the way a platform authenticator and its browser would (`navigator.credentials.create/get` and
 * `PublicKeyCredential.toJSON()`), with knobs to misbehave on purpose.
 *
 * It shares no code with the verifier (@simplewebauthn/server): the CBOR, the authenticator data
 * and the signature are built here from the specification, so a test that passes proves the two
 * agree on the bytes, not that one library agrees with itself.
 *
 * @see WebAuthn Level 3 §6.1 (authenticator data), §6.5.4 (`none` attestation), §5.8.1 (client
 *   data), §6.3.3 (assertion signature); RFC 9052/9053 (COSE EC2 keys); RFC 8949 (CBOR)
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** Authenticator data flags (WebAuthn L3 §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, AT: 0x40 } as const;
/** COSE algorithm ES256 (RFC 9053 §2.1). */
const ES256 = -7;

/** Options of {@link createSoftAuthenticator}. */
export interface SoftAuthenticatorOptions {
  /** The origin the "browser" reports in clientDataJSON, e.g. `http://localhost:8080`. */
  origin: string;
  /** The relying party id the authenticator is bound to (the bare host), e.g. `localhost`. */
  rpId: string;
  /** The signature counter to start from. Default 0. */
  signCount?: number;
  /**
   * `increment` (default): every assertion adds 1 to the counter first, like most security keys.
   * `fixed`: the counter never moves (0 stays 0, as passkey providers that sync keys do).
   */
  counter?: 'increment' | 'fixed';
  /** Whether the authenticator claims user verification (the UV flag). Default true. */
  userVerified?: boolean;
  /**
   * The credential id (base64url) to claim, with this authenticator's own key: a client can put any
   * id in its attested credential data (someone else's, say). A fresh random 32 bytes by default.
   */
  credentialId?: string;
}

/** Per-call knobs, to make one ceremony misbehave. */
export interface CeremonyOverrides {
  /** Report another origin in clientDataJSON (a phishing page, say). */
  origin?: string;
  /** Hash another RP id into the authenticator data, and skip the client's RP id check. */
  rpId?: string;
  /** Set or clear the UV flag for this call only. */
  userVerified?: boolean;
}

/** Per-call knobs of an assertion. */
export interface AssertionOverrides extends CeremonyOverrides {
  /** Send exactly this counter (e.g. one that goes backwards); the stored counter is left as it is. */
  signCount?: number;
  /**
   * Sign with a key of its own instead of the passkey's: what someone can send who knows the
   * credential id (every prompt names it) but not the private key. The authenticator's own counter
   * does not move.
   */
  forgeSignature?: boolean;
}

/** A software passkey; made by {@link createSoftAuthenticator}. */
export interface SoftAuthenticator {
  /** The credential id, base64url. */
  readonly credentialId: string;
  /** The counter the last assertion (or registration) carried. */
  readonly signCount: number;
  /** The `user.id` it was registered for (base64url), or undefined before {@link SoftAuthenticator.register}. */
  readonly userHandle: string | undefined;
  /**
   * Creates the passkey for `options` (what `generateRegistrationOptions` returns): `none`
   * attestation, flags UP|UV|AT, AAGUID of zeros, the COSE EC2 P-256 public key.
   * @throws Error like a browser would: an RP id that does not match (`SecurityError`), no ES256 in
   *   `pubKeyCredParams` (`NotSupportedError`), this credential in `excludeCredentials` (`InvalidStateError`).
   */
  register(options: PublicKeyCredentialCreationOptionsJSON, overrides?: CeremonyOverrides): Promise<RegistrationResponseJSON>;
  /**
   * Signs an assertion for `options` (what `generateAuthenticationOptions` returns): flags UP|UV,
   * the counter, the user handle, an ECDSA P-256 SHA-256 signature in DER (WebAuthn L3 §6.5.6).
   * @throws Error like a browser would: not registered or not in `allowCredentials`
   *   (`NotAllowedError`), an RP id that does not match (`SecurityError`).
   */
  authenticate(options: PublicKeyCredentialRequestOptionsJSON, overrides?: AssertionOverrides): Promise<AuthenticationResponseJSON>;
}

/**
 * Creates a software authenticator holding one fresh P-256 key.
 *
 * @example
 * ```ts
 * const phone = createSoftAuthenticator({ origin: 'http://localhost:8080', rpId: 'localhost' });
 * const registration = await phone.register(await generateRegistrationOptions({ … }));
 * const assertion = await phone.authenticate(options, { userVerified: false }); // a UV-less tap
 * ```
 */
export function createSoftAuthenticator(options: SoftAuthenticatorOptions): SoftAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = new Uint8Array(options.credentialId === undefined ? randomBytes(32) : Buffer.from(options.credentialId, 'base64url'));
  const credentialIdB64 = b64url(credentialId);
  const mode = options.counter ?? 'increment';
  const defaultUv = options.userVerified ?? true;
  let counter = options.signCount ?? 0;
  let lastCount = counter;
  let userHandle: string | undefined;

  function rpIdFor(requested: string | undefined, overrides: CeremonyOverrides): string {
    if (overrides.rpId !== undefined) return overrides.rpId;
    // A browser refuses an RP id that is not the page's registrable domain (WebAuthn L3 §5.1.3 step 8).
    if (requested !== undefined && requested !== options.rpId) {
      throw domError('SecurityError', `RP id ${requested} does not match ${options.rpId}`);
    }
    return options.rpId;
  }

  return {
    credentialId: credentialIdB64,
    get signCount() {
      return lastCount;
    },
    get userHandle() {
      return userHandle;
    },

    async register(creation, overrides = {}) {
      const rpId = rpIdFor(creation.rp.id, overrides);
      if (!creation.pubKeyCredParams.some((p) => p.alg === ES256)) throw domError('NotSupportedError', 'ES256 not offered');
      if (creation.excludeCredentials?.some((c) => c.id === credentialIdB64)) {
        throw domError('InvalidStateError', 'this authenticator is already registered');
      }
      const clientDataJSON = clientData('webauthn.create', creation.challenge, overrides.origin ?? options.origin);
      const flags = FLAG.UP | FLAG.AT | ((overrides.userVerified ?? defaultUv) ? FLAG.UV : 0);
      const coseKey = coseEc2PublicKey(publicKey);
      const authData = concat(
        authenticatorDataHead(rpId, flags, counter),
        new Uint8Array(16), // AAGUID: all zeros, as for `none` attestation without a model (WebAuthn L3 §6.5.1)
        uint16(credentialId.length),
        credentialId,
        coseKey,
      );
      const attestationObject = cbor(new Map<string, CborValue>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
      userHandle = creation.user.id;
      lastCount = counter;
      return {
        id: credentialIdB64,
        rawId: credentialIdB64,
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: creation.extensions?.credProps ? { credProps: { rk: true } } : {},
        response: {
          clientDataJSON: b64url(clientDataJSON),
          attestationObject: b64url(attestationObject),
          authenticatorData: b64url(authData),
          transports: ['internal'],
          publicKeyAlgorithm: ES256,
          publicKey: b64url(new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))),
        },
      };
    },

    async authenticate(request, overrides = {}) {
      if (userHandle === undefined) throw domError('NotAllowedError', 'no credential: call register first');
      const allowed = request.allowCredentials ?? [];
      if (allowed.length > 0 && !allowed.some((c) => c.id === credentialIdB64)) {
        throw domError('NotAllowedError', 'this credential is not in allowCredentials');
      }
      const rpId = rpIdFor(request.rpId, overrides);
      // A forger does not hold the authenticator, so its counter does not move; unless told
      // otherwise, a forger sends the next value.
      if (overrides.signCount === undefined && mode === 'increment' && !overrides.forgeSignature) counter += 1;
      const count = overrides.signCount ?? (overrides.forgeSignature && mode === 'increment' ? counter + 1 : counter);
      lastCount = count;
      const flags = FLAG.UP | ((overrides.userVerified ?? defaultUv) ? FLAG.UV : 0);
      const authData = authenticatorDataHead(rpId, flags, count);
      const clientDataJSON = clientData('webauthn.get', request.challenge, overrides.origin ?? options.origin);
      // The signature covers authenticatorData ‖ SHA-256(clientDataJSON) (WebAuthn L3 §6.3.3 step 11),
      // ECDSA as an ASN.1 DER Ecdsa-Sig-Value (§6.5.6), which node:crypto writes with dsaEncoding 'der'.
      const key = overrides.forgeSignature ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : privateKey;
      const signature = sign('sha256', concat(authData, sha256(clientDataJSON)), { key, dsaEncoding: 'der' });
      return {
        id: credentialIdB64,
        rawId: credentialIdB64,
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(new Uint8Array(signature)),
          userHandle,
        },
      };
    },
  };
}

/** CollectedClientData (WebAuthn L3 §5.8.1), its members in the order a browser writes them. */
function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian): the fixed head of authenticator data (WebAuthn L3 §6.1). */
function authenticatorDataHead(rpId: string, flags: number, signCount: number): Uint8Array {
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, signCount >>> 0);
  return concat(sha256(new TextEncoder().encode(rpId)), Uint8Array.of(flags), count);
}

/** The public key as a COSE_Key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} (RFC 9053 §7.1.1). */
function coseEc2PublicKey(publicKey: KeyObject): Uint8Array {
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

/** The CBOR values this file needs: integers, text, bytes and maps. */
type CborValue = number | string | Uint8Array | Map<string | number, CborValue>;

/**
 * A minimal CBOR encoder (RFC 8949 §3): definite lengths only, map entries in insertion order
 * (the keys above are already in CTAP2 canonical order, RFC 8949 §4.2.3 length-first).
 */
function cbor(value: CborValue): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError('only integers');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return concat(...parts);
}

/** A CBOR initial byte and argument (RFC 8949 §3): major type in the top 3 bits. */
function head(major: number, argument: number): Uint8Array {
  const mt = major << 5;
  if (argument < 24) return Uint8Array.of(mt | argument);
  if (argument < 0x100) return Uint8Array.of(mt | 24, argument);
  if (argument < 0x10000) return Uint8Array.of(mt | 25, argument >> 8, argument & 0xff);
  const out = new Uint8Array(5);
  out[0] = mt | 26;
  new DataView(out.buffer).setUint32(1, argument);
  return out;
}

function uint16(n: number): Uint8Array {
  return Uint8Array.of(n >> 8, n & 0xff);
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** An error named like the DOMException a browser would throw, so a test can match on `name`. */
function domError(name: string, message: string): Error {
  return new DOMException(message, name);
}
