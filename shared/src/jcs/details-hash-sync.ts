import { canonicalize } from './canonicalize.ts';
import { decisionChallengeText, type DecisionChallengeInput } from './details-hash.ts';
import { base64url, sha256Sync } from './sha256-node.ts';

/**
 * {@link detailsHash}, synchronously, for Node only (`node:crypto`; import it from
 * `@countersign/shared/node`): base64url(SHA-256(JCS(authorization_details))).
 *
 * @param authorizationDetails - the RFC 9396 `authorization_details` array, validated.
 * @returns 43 base64url characters, the same as {@link detailsHash}.
 * @see docs/design.md guarantee 3; RFC 8785 (JCS), RFC 9396 §2
 */
export function detailsHashSync(authorizationDetails: unknown): string {
  return base64url(sha256Sync(canonicalize(authorizationDetails)));
}

/**
 * {@link decisionChallenge}, synchronously, for Node only (`@countersign/shared/node`): the 32 bytes
 * of SHA-256(JCS({auth_req_id, details_hash, decision, nonce[, selected_code]})).
 *
 * @see docs/design.md guarantee 4; WebAuthn Level 3 §13.4.3 (cryptographic challenges)
 */
export function decisionChallengeSync(input: DecisionChallengeInput): Uint8Array {
  return sha256Sync(decisionChallengeText(input));
}
