import { CompactSign, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';

/** The `client_assertion_type` of RFC 7523 §2.2. */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client's signing key pair and the public JWK it registers. */
export interface ClientKey {
  alg: 'ES256' | 'PS256' | 'RS256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A fresh key pair (real keys, as a client would make them) with a random `kid`. */
export async function clientKey(alg: ClientKey['alg'] = 'ES256'): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid: randomUUID() } };
}

/** Now, in seconds, on the server's clock. */
export function epoch(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** Signs `payload` with `key`; `header` overrides the protected header (`alg`, `kid`). */
export async function sign(key: ClientKey, payload: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.publicJwk.kid, ...header }).sign(key.privateKey);
}

/** Signs payload text exactly as given (to send JSON spellings `JSON.stringify` never writes, like `49000.0`). */
export async function signText(key: ClientKey, payloadText: string): Promise<string> {
  return new CompactSign(new TextEncoder().encode(payloadText)).setProtectedHeader({ alg: key.alg, kid: key.publicJwk.kid }).sign(key.privateKey);
}

/** The classic confusion attack: HS256 with the client's *public* key (its JWK JSON) as the HMAC secret. */
export async function signHs256WithPublicKey(key: ClientKey, payload: JWTPayload): Promise<string> {
  const secret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: key.publicJwk.kid }).sign(secret);
}

/** An unsecured JWT (`alg: none`). */
export function unsigned(payload: JWTPayload): string {
  return new UnsecuredJWT(payload).encode();
}

/** RFC 7523 §3 claims of a client assertion, valid for 60 s from `nowMs`, with overrides (`undefined` removes a claim). */
export function assertionClaims(clientId: string, audience: string | string[], nowMs: number, overrides: Record<string, unknown> = {}): JWTPayload {
  const now = epoch(nowMs);
  return withOverrides({ iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 60, jti: randomUUID() }, overrides);
}

/** CIBA Core §7.1.1 envelope claims of a signed authentication request, valid for 5 minutes, plus `params`. */
export function requestClaims(clientId: string, issuer: string, nowMs: number, params: Record<string, unknown>, overrides: Record<string, unknown> = {}): JWTPayload {
  const now = epoch(nowMs);
  return withOverrides({ iss: clientId, aud: issuer, iat: now, nbf: now, exp: now + 300, jti: randomUUID(), ...params }, overrides);
}

function withOverrides(claims: Record<string, unknown>, overrides: Record<string, unknown>): JWTPayload {
  const result: Record<string, unknown> = { ...claims, ...overrides };
  for (const [name, value] of Object.entries(overrides)) if (value === undefined) delete result[name];
  return result as JWTPayload;
}

/** An `application/x-www-form-urlencoded` body. */
export function formBody(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** `Authorization: Basic` as RFC 6749 §2.3.1 builds it. */
export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}
