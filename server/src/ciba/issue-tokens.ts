import { CountersignError, type TokenResponse } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { signApprovalToken, signIdToken } from '../tokens/index.ts';

/**
 * Issues the approval token of an approved request, once. The token is signed first and then
 * bound to the request by a compare-and-swap on `token_jti`, so two polls racing each other get
 * one token between them: the loser gets `invalid_grant`, as for any reused `auth_req_id`.
 *
 * The token expires with the approval (`approval_expires_at`), so `expires_in` counts down from
 * the moment the person approved.
 *
 * @throws CountersignError `invalid_grant` when a token was already issued for this request;
 *   `expired_token` when the approval ran out meanwhile.
 * @see CIBA Core 1.0 §10.1.1, RFC 9068 §2, RFC 9396 §7
 */
export async function issueTokens(deps: Deps, request: ApprovalRequest): Promise<TokenResponse> {
  const now = deps.clock.now();
  const issuer = deps.config.publicUrl;
  const jti = deps.ids(24);
  const approvalExpiresAt = request.approval_expires_at ?? now;
  const times = { iat: Math.floor(now / 1000), exp: Math.floor(approvalExpiresAt / 1000) };
  const accessToken = await signApprovalToken(
    deps.keyRing,
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
    times,
  );
  const result = await deps.store.compareAndSet(
    keys.request(request.tenant, request.auth_req_id),
    [
      { field: 'state', op: 'eq', value: 'approved' },
      { field: 'token_jti', op: 'absent' },
      { field: 'approval_expires_at', op: 'gt', value: now },
    ],
    { token_jti: jti, token_issued_at: String(now) },
  );
  if (!result.ok) {
    if (result.fields?.token_jti) throw new CountersignError('invalid_grant', 'A token was already issued for this auth_req_id.');
    throw new CountersignError('expired_token', 'The approval has expired.');
  }
  const idToken = await signIdToken(
    deps.keyRing,
    issuer,
    { sub: request.sub, client_id: request.client_id, auth_req_id: request.auth_req_id, access_token: accessToken },
    { iat: times.iat, exp: times.iat + 600, auth_time: Math.floor((request.decided_at ?? now) / 1000) },
  );
  await deps.audit.record({
    type: 'token_issued',
    tenant: request.tenant,
    auth_req_id: request.auth_req_id,
    client_id: request.client_id,
    sub: request.sub,
    channel: 'agent',
    detail: { jti, expires_in: secondsUntil(approvalExpiresAt, now) },
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: secondsUntil(approvalExpiresAt, now),
    id_token: idToken,
    authorization_details: request.authorization_details,
  };
}
