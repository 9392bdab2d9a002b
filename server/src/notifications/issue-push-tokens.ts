import { CountersignError } from '@countersign/shared';
import type { ApprovalRequest } from '../requests/index.ts';
import { bindTokens, type BindTokensDeps } from '../ciba/index.ts';
import type { Fields } from '../store/index.ts';
import { pushTokenBody, type PushTokenBody } from './notification-body.ts';

/**
 * The request hash field that keeps a push client's token delivery (the §10.3.1 body, JSON) from
 * the moment the token is issued until it is delivered or given up on, then emptied. It carries a
 * bearer token, so, like `notification_token`, it is deliberately not a member of
 * `ApprovalRequest`: whatever serialises a request (the admin view, a log line, the audit) cannot
 * carry it. Only the notifier reads it.
 */
export const PUSH_BODY_FIELD = 'push_body';

/** The push body kept in a request's fields, or null when there is none (not issued, or delivered since). */
export function keptPushBody(fields: Fields): PushTokenBody | null {
  const json = fields[PUSH_BODY_FIELD];
  return json ? (JSON.parse(json) as PushTokenBody) : null;
}

/** What {@link issuePushTokens} needs of the server's dependencies. */
export type IssuePushTokensDeps = BindTokensDeps;

/**
 * Issues the approval token of an approved push-mode request, once, and keeps the whole push body
 * beside the request in the same compare-and-swap that binds the token to it (`token_jti`).
 *
 * Why not `issueTokens` and then a second write: the delivery is a job that may be retried, or run
 * again by another instance after a crash, and every run must send the same token. With two writes,
 * a crash between them would leave a token bound to the request that no run could send again (and
 * a push client cannot poll for it). Here both tokens are signed first and the body lands with the
 * binding, or not at all, so a later run finds either no token (and issues it) or the body (and
 * sends it again): a duplicate push of the same token at worst, never a second token.
 *
 * The tokens are signed by `signTokenResponse`, as for `issueTokens` (ciba/issue-tokens.ts): the token
 * expires with the approval, the ID token carries `at_hash` and the `auth_req_id` claim.
 *
 * @returns the body to push: the one this call issued, or the one an earlier or concurrent run
 *   issued and kept; null when a token was issued but its body is no longer kept (delivered or
 *   given up on): there is nothing to send.
 * @throws CountersignError `expired_token` when the approval ran out (or the request moved on) first.
 * @see CIBA Core 1.0 §10.3.1 (successful token delivery), RFC 9068 §2
 */
export async function issuePushTokens(deps: IssuePushTokensDeps, request: ApprovalRequest): Promise<PushTokenBody | null> {
  let body: PushTokenBody | undefined;
  const bound = await bindTokens(deps, request, (tokens) => {
    body = pushTokenBody(request.auth_req_id, tokens);
    return { [PUSH_BODY_FIELD]: JSON.stringify(body) };
  });
  if (bound.ok) return body!;
  // Another run bound its token first: send that one (the tokens signed here are never used).
  if (bound.fields?.token_jti) return keptPushBody(bound.fields);
  throw new CountersignError('expired_token', 'The approval has expired.');
}
