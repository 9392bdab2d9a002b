/**
 * A software WebAuthn authenticator for tests without a browser: one P-256 passkey, made and used
 * the way a platform authenticator and its browser would (`navigator.credentials.create/get` and
 * `PublicKeyCredential.toJSON()`), with knobs to misbehave on purpose.
 *
 * It shares no code with the verifier (@simplewebauthn/server): the CBOR (`cbor.ts`), the
 * authenticator data (`webauthn-data.ts`) and the signature are built from the specification, so a
 * test that passes proves the two agree on the bytes, not that one library agrees with itself.
 *
 * @see WebAuthn Level 3 §6.1 (authenticator data), §6.5.4 (`none` attestation), §5.8.1 (client
 *   data), §6.3.3 (assertion signature); RFC 9052/9053 (COSE EC2 keys); RFC 8949 (CBOR)
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { cbor, type CborValue, concat, uint16 } from './cbor.ts';
import type { AssertionOverrides, CeremonyOverrides, SoftAuthenticatorOptions } from './soft-authenticator-options.ts';
import { authenticatorDataHead, b64url, clientData, coseEc2PublicKey, ES256, FLAG, sha256 } from './webauthn-data.ts';

export type { AssertionOverrides, CeremonyOverrides, SoftAuthenticatorOptions } from './soft-authenticator-options.ts';

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
      const attestationObject = cbor(
        new Map<string, CborValue>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      );
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

/** An error named like the DOMException a browser would throw, so a test can match on `name`. */
function domError(name: string, message: string): Error {
  return new DOMException(message, name);
}
