import { randomBytes } from 'node:crypto';

/**
 * A random identifier: `bytes` of CSPRNG output in base64url, with an optional prefix.
 * `auth_req_id` uses 20 bytes (160 bits, as CIBA Core §7.3 recommends; it requires at least 128).
 */
export function randomId(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** Generates identifiers; injected so tests can predict them where they need to. */
export type IdGenerator = (bytes?: number, prefix?: string) => string;
