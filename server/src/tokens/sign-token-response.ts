import type { TokenResponse } from '@countersign/shared';
import { secondsUntil } from '../runtime/index.ts';
import type { KeyRing } from './key-ring.ts';
import { signApprovalToken, signIdToken } from './sign-tokens.ts';

/** What an approved request contributes to its tokens. Times are epoch ms. */
export interface TokenSubject {
  sub: string;
  client_id: string;
  tenant: string;
  scope: string;
  auth_req_id: string;
  authorization_details: TokenResponse['authorization_details'];
  details_hash: string;
  decided_at?: number;
  approval_expires_at?: number;
}

/**
 * Signs the CIBA token response of an approved request: the approval token (RFC 9068 `at+jwt`,
 * expiring with the approval, so `expires_in` counts down from the person's decision) and the ID
 * token (`auth_time` the decision, `at_hash`, the `auth_req_id` claim, 600 s). Binding the token
 * to the request (`token_jti`) is the caller's compare-and-swap: poll and push bind differently.
 *
 * @param jti - the token's id, to be bound to the request.
 * @see CIBA Core 1.0 §10.1.1 and §10.3.1, RFC 9068 §2, RFC 9396 §7
 */
export async function signTokenResponse(ring: KeyRing, issuer: string, request: TokenSubject, jti: string, nowMs: number): Promise<TokenResponse> {
  const approvalExpiresAt = request.approval_expires_at ?? nowMs;
  const iat = Math.floor(nowMs / 1000);
  const accessToken = await signApprovalToken(
    ring,
    issuer,
    {
      sub: request.sub,
      client_id: request.client_id,
      tenant: request.tenant,
      scope: request.scope,
      auth_req_id: request.auth_req_id,
      authorization_details: request.authorization_details,
      details_hash: request.details_hash,
      jti,
    },
    { iat, exp: Math.floor(approvalExpiresAt / 1000) },
  );
  const idToken = await signIdToken(ring, issuer, { sub: request.sub, client_id: request.client_id, auth_req_id: request.auth_req_id, access_token: accessToken }, { iat, exp: iat + 600, auth_time: Math.floor((request.decided_at ?? nowMs) / 1000) });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: secondsUntil(approvalExpiresAt, nowMs),
    id_token: idToken,
    authorization_details: request.authorization_details,
  };
}
