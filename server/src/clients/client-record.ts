import { createHash, timingSafeEqual } from 'node:crypto';

/** A registered client (agent or backend), as stored. The secret is kept only as a hash. */
export interface ClientRecord {
  client_id: string;
  tenant: string;
  name: string;
  /** base64url(SHA-256(client_secret)): the secret is 256 random bits, so a fast hash suffices. */
  secret_hash: string;
  token_delivery_mode: 'poll' | 'ping' | 'push';
  backchannel_client_notification_endpoint?: string;
  /** Epoch ms. */
  created_at: number;
}

/** The hash a client secret is stored as. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compares a presented secret with the stored hash in constant time. */
export function secretMatches(presented: string, secretHash: string): boolean {
  const a = Buffer.from(hashSecret(presented));
  const b = Buffer.from(secretHash);
  return a.length === b.length && timingSafeEqual(a, b);
}
