import { createHash, timingSafeEqual } from 'node:crypto';

/** base64url(SHA-256(text as UTF-8)): how a bearer secret is kept at rest (a client secret, an issued approval token). */
export function sha256Base64url(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** Whether two strings are equal, compared in constant time (for hashes of secrets: no early exit tells how much matched). */
export function equalInConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
