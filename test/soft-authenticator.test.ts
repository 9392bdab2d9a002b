import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse, type WebAuthnCredential } from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSoftAuthenticator, type SoftAuthenticatorOptions } from './support/soft-authenticator.ts';

const origin = 'http://localhost:8080';
const rpID = 'localhost';

/** Registers a soft authenticator against @simplewebauthn/server and returns the stored credential. */
async function enrolled(options: Partial<SoftAuthenticatorOptions> = {}) {
  const authenticator = createSoftAuthenticator({ origin, rpId: rpID, ...options });
  const creation = await generateRegistrationOptions({
    rpName: 'Countersign',
    rpID,
    userName: 'alice',
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const response = await authenticator.register(creation);
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: creation.challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: true,
  });
  if (!verification.verified) throw new Error('registration failed');
  const credential: WebAuthnCredential = verification.registrationInfo.credential;
  return { authenticator, credential, creation, verification };
}

/** Authentication options over a 32-byte challenge, as the server makes them for a decision. */
async function requestOptions(credential: WebAuthnCredential) {
  const challenge = new Uint8Array(randomBytes(32));
  const options = await generateAuthenticationOptions({
    rpID,
    challenge,
    allowCredentials: [{ id: credential.id }],
    userVerification: 'required',
  });
  return { options, expectedChallenge: Buffer.from(challenge).toString('base64url') };
}

function verify(response: Parameters<typeof verifyAuthenticationResponse>[0]['response'], credential: WebAuthnCredential, expectedChallenge: string) {
  return verifyAuthenticationResponse({ response, expectedChallenge, expectedOrigin: origin, expectedRPID: rpID, credential, requireUserVerification: true });
}

describe('soft authenticator', () => {
  it('registers a passkey that @simplewebauthn/server verifies, with none attestation, UV and the ES256 key', async () => {
    const { authenticator, credential, creation, verification } = await enrolled();
    expect(verification.registrationInfo.fmt).toBe('none');
    expect(verification.registrationInfo.userVerified).toBe(true);
    expect(verification.registrationInfo.aaguid).toBe('00000000-0000-0000-0000-000000000000');
    expect(credential.id).toBe(authenticator.credentialId);
    expect(credential.counter).toBe(0);
    expect(authenticator.userHandle).toBe(creation.user.id);
  });

  it('signs assertions that verify, with user verification required and a counter that rises by one', async () => {
    const { authenticator, credential } = await enrolled();
    for (const expected of [1, 2]) {
      const { options, expectedChallenge } = await requestOptions(credential);
      const response = await authenticator.authenticate(options);
      const result = await verify(response, credential, expectedChallenge);
      expect(result.verified).toBe(true);
      expect(result.authenticationInfo.userVerified).toBe(true);
      expect(result.authenticationInfo.newCounter).toBe(expected);
      expect(response.response.userHandle).toBe(authenticator.userHandle);
      credential.counter = result.authenticationInfo.newCounter;
    }
  });

  it('refuses an assertion made for another origin', async () => {
    const { authenticator, credential } = await enrolled();
    const { options, expectedChallenge } = await requestOptions(credential);
    const response = await authenticator.authenticate(options, { origin: 'https://evil.example' });
    await expect(verify(response, credential, expectedChallenge)).rejects.toThrow(/origin/i);
  });

  it('refuses an assertion without user verification', async () => {
    const { authenticator, credential } = await enrolled();
    const { options, expectedChallenge } = await requestOptions(credential);
    const response = await authenticator.authenticate(options, { userVerified: false });
    await expect(verify(response, credential, expectedChallenge)).rejects.toThrow(/user.*verif/i);
  });

  it('refuses a registration without user verification when it is required', async () => {
    await expect(enrolled({ userVerified: false })).rejects.toThrow(/user.*verif/i);
  });

  it('refuses an assertion over another challenge', async () => {
    const { authenticator, credential } = await enrolled();
    const { options } = await requestOptions(credential);
    const response = await authenticator.authenticate(options);
    const other = Buffer.from(randomBytes(32)).toString('base64url');
    await expect(verify(response, credential, other)).rejects.toThrow();
  });

  it('keeps a fixed counter at 0, which the verifier accepts after 0', async () => {
    const { authenticator, credential } = await enrolled({ counter: 'fixed' });
    const { options, expectedChallenge } = await requestOptions(credential);
    const result = await verify(await authenticator.authenticate(options), credential, expectedChallenge);
    expect(result.verified).toBe(true);
    expect(result.authenticationInfo.newCounter).toBe(0);
  });

  it('sends a counter that goes backwards when told to, which the verifier refuses', async () => {
    const { authenticator, credential } = await enrolled({ signCount: 10 });
    const { options, expectedChallenge } = await requestOptions(credential);
    const first = await verify(await authenticator.authenticate(options), credential, expectedChallenge);
    expect(first.authenticationInfo.newCounter).toBe(11);
    credential.counter = 11;
    const again = await requestOptions(credential);
    const backwards = await authenticator.authenticate(again.options, { signCount: 3 });
    await expect(verify(backwards, credential, again.expectedChallenge)).rejects.toThrow(/counter/i);
  });

  it('forges a signature when told to, which does not verify, and leaves its own counter alone', async () => {
    const { authenticator, credential } = await enrolled();
    const { options, expectedChallenge } = await requestOptions(credential);
    const forged = await authenticator.authenticate(options, { forgeSignature: true });
    const result = await verify(forged, credential, expectedChallenge);
    expect([result.verified, result.authenticationInfo.newCounter]).toEqual([false, 1]);
    const again = await requestOptions(credential);
    const genuine = await verify(await authenticator.authenticate(again.options), credential, again.expectedChallenge);
    expect([genuine.verified, genuine.authenticationInfo.newCounter]).toEqual([true, 1]);
  });

  it('claims a given credential id with a key of its own', async () => {
    const original = await enrolled();
    const impostor = await enrolled({ credentialId: original.authenticator.credentialId });
    expect([impostor.authenticator.credentialId, impostor.credential.id]).toEqual([original.credential.id, original.credential.id]);
    expect(Buffer.from(impostor.credential.publicKey).equals(Buffer.from(original.credential.publicKey))).toBe(false);
  });

  it('behaves like a browser: refuses options for another RP id or without its credential', async () => {
    const { authenticator, credential } = await enrolled();
    const { options } = await requestOptions(credential);
    await expect(authenticator.authenticate({ ...options, rpId: 'example.com' })).rejects.toMatchObject({ name: 'SecurityError' });
    await expect(authenticator.authenticate({ ...options, allowCredentials: [{ id: 'AAAA', type: 'public-key' }] })).rejects.toMatchObject({
      name: 'NotAllowedError',
    });
  });
});
