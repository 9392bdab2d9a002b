import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClientRecord } from './client-record.ts';
import { MAX_ASSERTION_LIFETIME_SECONDS, verifyClientAssertion } from './verify-client-assertion.ts';

const ISSUER = 'https://countersign.example';
const NOW_MS = Date.parse('2026-01-01T00:00:00Z');
const NOW = NOW_MS / 1000;

function clientWith(keys: JWK[]): ClientRecord {
  return { client_id: 'cli_test', tenant: 'default', name: 'Test', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys }, profile: 'default', token_delivery_mode: 'poll', created_at: 0 };
}

function assertion(key: CryptoKey, claims: Record<string, unknown> = {}, kid?: string): Promise<string> {
  return new SignJWT({ iss: 'cli_test', sub: 'cli_test', aud: ISSUER, iat: NOW, exp: NOW + 60, jti: 'j1', ...claims }).setProtectedHeader({ alg: 'ES256', ...(kid ? { kid } : {}) }).sign(key);
}

describe('verifyClientAssertion', () => {
  let first: { privateKey: CryptoKey; jwk: JWK };
  let second: { privateKey: CryptoKey; jwk: JWK };

  beforeAll(async () => {
    const make = async () => {
      const pair = await generateKeyPair('ES256');
      return { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
    };
    [first, second] = await Promise.all([make(), make()]);
  });

  it('tries every registered key that fits a header without kid', async () => {
    const client = clientWith([first.jwk, second.jwk]);
    const result = await verifyClientAssertion(await assertion(second.privateKey), client, { audience: [ISSUER], nowMs: NOW_MS });
    expect(result).toEqual({ verified: true, jti: 'j1', exp: NOW + 60 });
  });

  it('refuses a header without kid when no registered key verifies it', async () => {
    const stranger = await generateKeyPair('ES256');
    const result = await verifyClientAssertion(await assertion(stranger.privateKey), clientWith([first.jwk, second.jwk]), { audience: [ISSUER], nowMs: NOW_MS });
    expect(result).toEqual({ verified: false, reason: 'bad_signature' });
  });

  it(`accepts a life of exactly ${MAX_ASSERTION_LIFETIME_SECONDS} s and refuses one second more`, async () => {
    const client = clientWith([first.jwk]);
    const check = { audience: [ISSUER], nowMs: NOW_MS };
    expect((await verifyClientAssertion(await assertion(first.privateKey, { exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS }), client, check)).verified).toBe(true);
    expect(await verifyClientAssertion(await assertion(first.privateKey, { exp: NOW + MAX_ASSERTION_LIFETIME_SECONDS + 1 }), client, check)).toEqual({ verified: false, reason: 'lifetime_too_long' });
  });

  it('refuses a client that registered no keys', async () => {
    const client = { ...clientWith([]), jwks: undefined };
    expect((await verifyClientAssertion(await assertion(first.privateKey), client, { audience: [ISSUER], nowMs: NOW_MS })).verified).toBe(false);
  });
});
