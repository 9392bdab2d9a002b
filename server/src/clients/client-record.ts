import type { CLIENT_SIGNING_ALGS, TOKEN_ENDPOINT_AUTH_METHODS } from '@countersign/shared';
import type { JWK } from 'jose';
import { equalInConstantTime, sha256Base64url } from '../runtime/index.ts';

/** A registered client (agent or backend), as stored. The secret is kept only as a hash. */
export interface ClientRecord {
  client_id: string;
  tenant: string;
  name: string;
  /** base64url(SHA-256(client_secret)): the secret is 256 random bits, so a fast hash suffices. Absent for `private_key_jwt`. */
  secret_hash?: string;
  /** The one method this client authenticates with (RFC 7591 §2). */
  token_endpoint_auth_method: (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
  /** The client's public keys, for `private_key_jwt` and signed authentication requests. */
  jwks?: { keys: JWK[] };
  /** When set, every authentication request must be a `request` JWT signed with this algorithm (CIBA Core §7.1.1). */
  backchannel_authentication_request_signing_alg?: (typeof CLIENT_SIGNING_ALGS)[number];
  /** `fapi-ciba`: the FAPI-CIBA profile's stricter rules apply. */
  profile: 'default' | 'fapi-ciba';
  token_delivery_mode: 'poll' | 'ping' | 'push';
  backchannel_client_notification_endpoint?: string;
  /** Epoch ms. */
  created_at: number;
  /**
   * Epoch ms when an operator disabled the client (`POST /api/admin/clients/{id}/disable`): while
   * set, every call it authenticates is refused `invalid_client`. Absent on an enabled client.
   */
  disabled_at?: number;
  /** Epoch ms of the last secret rotation (`POST /api/admin/clients/{id}/secret`); absent before the first. */
  secret_rotated_at?: number;
}

/** The hash a client secret is stored as. */
export function hashSecret(secret: string): string {
  return sha256Base64url(secret);
}

/** Compares a presented secret with the stored hash in constant time. */
export function secretMatches(presented: string, secretHash: string): boolean {
  return equalInConstantTime(hashSecret(presented), secretHash);
}
