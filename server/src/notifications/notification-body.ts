import type { TokenResponse } from '@countersign/shared';

/** The ping callback body (CIBA Core §10.2): only the id; the client fetches the result at `/token`. */
export interface PingBody {
  auth_req_id: string;
}

/** The push mode's successful token delivery (CIBA Core §10.3.1): the token response plus the id. */
export type PushTokenBody = { auth_req_id: string } & TokenResponse;

/** The error words a push error payload may carry here (CIBA Core §12). */
export type PushErrorCode = 'access_denied' | 'expired_token';

/** The push mode's error payload (CIBA Core §12). */
export interface PushErrorBody {
  error: PushErrorCode;
  error_description: string;
  auth_req_id: string;
}

const DESCRIPTIONS: Record<PushErrorCode, string> = {
  access_denied: 'The user denied the request.',
  expired_token: 'The request expired before the user decided.',
};

/** The body of a ping. @see CIBA Core 1.0 §10.2 */
export function pingBody(authReqId: string): PingBody {
  return { auth_req_id: authReqId };
}

/**
 * The body of a push with tokens. The `id_token` inside already carries `at_hash` and
 * `urn:openid:params:jwt:claim:auth_req_id`, as §10.3.1 requires for this mode (`signIdToken`).
 * @see CIBA Core 1.0 §10.3.1
 */
export function pushTokenBody(authReqId: string, token: TokenResponse): PushTokenBody {
  return { auth_req_id: authReqId, ...token };
}

/** The body of a push that reports a denial or an expiry. @see CIBA Core 1.0 §12 */
export function pushErrorBody(authReqId: string, error: PushErrorCode): PushErrorBody {
  return { error, error_description: DESCRIPTIONS[error], auth_req_id: authReqId };
}
