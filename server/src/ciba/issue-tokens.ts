import { CountersignError, type TokenResponse } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { signTokenResponse } from '../tokens/index.ts';

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
  const jti = deps.ids(24);
  // Signed before the swap: a loser's tokens are thrown away, never bound or sent.
  const response = await signTokenResponse(deps.keyRing, deps.config.publicUrl, request, jti, now);
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
  await deps.audit.record({
    type: 'token_issued',
    tenant: request.tenant,
    auth_req_id: request.auth_req_id,
    client_id: request.client_id,
    sub: request.sub,
    channel: 'agent',
    detail: { jti, expires_in: response.expires_in },
  });
  return response;
}
