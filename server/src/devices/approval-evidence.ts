import { canonicalize, type Decision } from '@countersign/shared';
import { createHash } from 'node:crypto';

/**
 * What one party's passkey approval of a mandate signed, kept so that anyone can check the
 * signature again without the server: the challenge's input (its SHA-256 is the WebAuthn
 * challenge, docs/design.md guarantee 4), the assertion exactly as the authenticator made it, and
 * the credential's public key and the RP ID and origin it was checked against. Nothing in it is
 * secret: an assertion is a signature over a one-use challenge, and replays nothing.
 *
 * @see WebAuthn Level 3 §7.2 (verifying an authentication assertion); docs/mandates.md "Evidence"
 */
export interface ApprovalEvidence {
  /** The challenge's input: base64url(SHA-256(JCS(signed))) is the assertion's challenge. */
  signed: { auth_req_id: string; details_hash: string; decision: Decision; nonce: string; selected_code?: string };
  /** The assertion (`AuthenticationResponseJSON` without client extension results), base64url members. */
  assertion: { id: string; type: 'public-key'; response: { authenticatorData: string; clientDataJSON: string; signature: string; userHandle?: string } };
  /** The credential's COSE public key, base64url, as stored at enrollment. */
  credential_public_key: string;
  /** The RP ID and origin the assertion was verified for. */
  rp_id: string;
  origin: string;
}

/**
 * base64url(SHA-256(JCS(evidence))): the value the approval's audit event carries as
 * `evidence_hash`, so the evidence exported later is tied to the hash chain of the moment it was made.
 * @see RFC 8785 (JCS)
 */
export function evidenceHash(evidence: ApprovalEvidence): string {
  return createHash('sha256').update(canonicalize(evidence), 'utf8').digest('base64url');
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The evidence of a verified assertion: only the members a verifier needs are copied from the
 * answer the device sent (they verified, so each is a base64url string).
 */
export function approvalEvidence(input: { signed: ApprovalEvidence['signed']; response: Record<string, unknown>; publicKey: string; rpId: string; origin: string }): ApprovalEvidence {
  const inner = (input.response.response ?? {}) as Record<string, unknown>;
  const userHandle = text(inner.userHandle);
  return {
    signed: input.signed,
    assertion: {
      id: String(input.response.id),
      type: 'public-key',
      response: { authenticatorData: String(inner.authenticatorData), clientDataJSON: String(inner.clientDataJSON), signature: String(inner.signature), ...(userHandle ? { userHandle } : {}) },
    },
    credential_public_key: input.publicKey,
    rp_id: input.rpId,
    origin: input.origin,
  };
}
