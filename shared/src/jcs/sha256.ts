/** Base64url without padding (RFC 4648 §5) of some bytes. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * SHA-256 of UTF-8 text with WebCrypto: the browser's implementation. Under Node, `#sha256`
 * resolves to `sha256-node.ts` instead (package.json `imports`, condition `node`), which hashes
 * synchronously with `node:crypto` rather than queueing one WebCrypto job per hash.
 *
 * @returns the 32-byte digest.
 */
export async function sha256(text: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return new Uint8Array(digest);
}
