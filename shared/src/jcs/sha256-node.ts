import { createHash } from 'node:crypto';

/**
 * Node's twin of `sha256.ts`, chosen by the `node` condition of `#sha256` (shared/package.json):
 * the same functions, the same results, without WebCrypto's asynchronous job per hash. Keep the
 * two files' exports identical: type checking sees `sha256.ts`.
 */

/** Base64url without padding (RFC 4648 §5) of some bytes. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * SHA-256 of UTF-8 text with `node:crypto`, synchronously.
 * @returns the 32-byte digest (a plain `Uint8Array` over the digest's memory, not a `Buffer`).
 */
export function sha256Sync(text: string): Uint8Array {
  const digest = createHash('sha256').update(text, 'utf8').digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

/**
 * SHA-256 of UTF-8 text: {@link sha256Sync} behind the asynchronous signature the browser's
 * WebCrypto version has.
 * @returns the 32-byte digest.
 */
export async function sha256(text: string): Promise<Uint8Array> {
  return sha256Sync(text);
}
