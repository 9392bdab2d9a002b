import { randomBytes } from 'node:crypto';

/**
 * A random identifier: `bytes` of CSPRNG output in base64url, with an optional prefix.
 * `auth_req_id` uses 32 bytes (256 bits; CIBA Core §7.3 asks for enough entropy that it cannot be guessed).
 */
export function randomId(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** Generates identifiers; injected so tests can predict them where they need to. */
export interface IdGenerator {
  (bytes?: number, prefix?: string): string;
}
