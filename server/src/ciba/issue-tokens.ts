import { CountersignError, type TokenResponse } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import type { Fields } from '../store/index.ts';
import { signTokenResponse, tokenHash } from '../tokens/index.ts';

/** What {@link bindTokens} needs of the server's dependencies. */
export type BindTokensDeps = Pick<Deps, 'clock' | 'config' | 'ids' | 'keyRing' | 'lifecycle'> & Partial<Pick<Deps, 'metrics'>>;

/**
 * Signs the token response of an approved request and binds it to the request, once
 * (`Lifecycle.issueToken`: `token_jti`, `token_hash` (what `/redeem` recognises the token by), and `extra`, e.g. the push body, written only while the
 * request is approved, has no token yet and the approval has not run out; its consequence audits
 * `token_issued`). Signed before the swap: a loser's tokens are thrown away, never bound or sent.
 *
 * @param extra - further fields to write in the same swap, from the signed tokens.
 * @returns the tokens when this call bound them; otherwise the request's fields as they stand
 *   (null when it is gone), for the caller to tell "already issued" from "expired".
 * @see CIBA Core 1.0 §10.1.1 and §10.3.1, RFC 9068 §2
 */
export async function bindTokens(deps: BindTokensDeps, request: ApprovalRequest, extra: (tokens: TokenResponse) => Fields = () => ({})): Promise<{ ok: true; tokens: TokenResponse } | { ok: false; fields: Fields | null }> {
  const now = deps.clock.now();
  const jti = deps.ids(24);
  const tokens = await signTokenResponse(deps.keyRing, deps.config.publicUrl, request, jti, now);
  const result = await deps.lifecycle.issueToken(request, { jti, hash: tokenHash(tokens.access_token), expires_in: tokens.expires_in }, extra(tokens), now);
  if (!result.ok) return { ok: false, fields: result.fields };
  const approvedAt = Math.max(...(request.approvals ?? []).map((given) => given.at));
  if (Number.isFinite(approvedAt)) deps.metrics?.approvalToToken.observe(Math.max(0, now - approvedAt) / 1000);
  return { ok: true, tokens };
}

/**
 * Issues the approval token of an approved request to a polling client, once (see
 * {@link bindTokens}): two polls racing each other get one token between them; the loser gets
 * `invalid_grant`, as for any reused `auth_req_id`. The token expires with the approval
 * (`approval_expires_at`), so `expires_in` counts down from the moment the person approved.
 *
 * @throws CountersignError `invalid_grant` when a token was already issued for this request;
 *   `expired_token` when the approval ran out meanwhile.
 * @see CIBA Core 1.0 §10.1.1, RFC 9068 §2, RFC 9396 §7
 */
export async function issueTokens(deps: Deps, request: ApprovalRequest): Promise<TokenResponse> {
  const bound = await bindTokens(deps, request);
  if (bound.ok) return bound.tokens;
  if (bound.fields?.token_jti) throw new CountersignError('invalid_grant', 'A token was already issued for this auth_req_id.');
  throw new CountersignError('expired_token', 'The approval has expired.');
}
