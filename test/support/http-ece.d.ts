// http_ece 1.2.1 ships no types. Only what the tests use (Encrypted Content-Encoding, RFC 8188).
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  /** Parameters of {@link decrypt} and {@link encrypt}; byte values may be base64url strings. */
  export interface EceParams {
    version?: 'aes128gcm' | 'aesgcm' | 'aesgcm128';
    /** The receiver's ECDH key (RFC 8291 §3.4: the user agent's key pair). */
    privateKey?: ECDH;
    /** RFC 8291 §3.2 authentication secret (16 bytes). */
    authSecret?: Buffer | string;
    dh?: Buffer | string;
    key?: Buffer | string;
    salt?: Buffer | string;
    keyid?: string;
    rs?: number;
  }

  /** Decrypts an RFC 8188 body; throws when authentication fails. */
  export function decrypt(buffer: Buffer, params: EceParams): Buffer;
  /** Encrypts to an RFC 8188 body. */
  export function encrypt(buffer: Buffer, params: EceParams): Buffer;

  const ece: { decrypt: typeof decrypt; encrypt: typeof encrypt };
  export default ece;
}
