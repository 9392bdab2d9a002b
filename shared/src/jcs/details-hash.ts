import { canonicalize } from './canonicalize.ts';
import { base64url, sha256 } from '#sha256';

/**
 * The `details_hash` of an action: base64url(SHA-256(JCS(authorization_details))).
 *
 * Stored with the request, signed into the approval token and recomputed at redemption
 * (docs/design.md guarantee 3). Hash the *validated* details, so that the same action always gives
 * the same hash however its JSON was spelled.
 *
 * @param authorizationDetails - the RFC 9396 `authorization_details` array.
 * @returns 43 base64url characters.
 * @see RFC 8785 (JCS), RFC 9396 §2
 */
export async function detailsHash(authorizationDetails: unknown): Promise<string> {
  return base64url(await sha256(canonicalize(authorizationDetails)));
}

/**
 * The WebAuthn challenge for one decision on one request:
 * SHA-256(JCS({auth_req_id, details_hash, decision, nonce})), as 32 bytes.
 *
 * Only for an approval under number matching (the policy tier asks for it) the input also holds
 * `selected_code`, the code the person picked, so the passkey signs the pick too; every other
 * challenge is byte for byte the construction of guarantee 4 (the member is left out, not null).
 *
 * @see docs/design.md guarantee 4; WebAuthn Level 3 §13.4.3 (cryptographic challenges)
 */
export async function decisionChallenge(input: DecisionChallengeInput): Promise<Uint8Array> {
  return sha256(decisionChallengeText(input));
}

/** What a decision challenge signs; see {@link decisionChallenge}. */
export interface DecisionChallengeInput {
  auth_req_id: string;
  details_hash: string;
  decision: 'approve' | 'deny';
  nonce: string;
  /** Number matching only: the two-digit code the person picked. */
  selected_code?: string;
}

/** The JCS text whose SHA-256 is the decision challenge ({@link decisionChallenge}). */
export function decisionChallengeText(input: DecisionChallengeInput): string {
  const { selected_code, ...base } = input;
  return canonicalize(selected_code === undefined ? base : { ...base, selected_code });
}
