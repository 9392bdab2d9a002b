import { z } from 'zod';
import { authorizationDetails } from '@countersign/shared';
import { CountersignError, isErrorCode, type ErrorCode } from '@countersign/shared';
import { REQUEST_STATES, type BcAuthorizeResponse, type ClientRequestView, type RedeemResponse, type TokenResponse } from '@countersign/shared';

// Response schemas are `z.object` (not strict): a client must tolerate members a newer server
// adds (RFC 6749 §5.1: "The client MUST ignore unrecognized value names in the response").

/** `POST /bc-authorize` 200 body. `interval` defaults to 5 s when absent (CIBA Core §7.3). */
export const bcAuthorizeResponse: z.ZodType<BcAuthorizeResponse, unknown> = z.object({
  auth_req_id: z.string().min(1),
  expires_in: z.number().nonnegative(),
  interval: z.number().nonnegative().default(5),
  /** Number matching: the two-digit code the agent shows the person, who picks it on the device. */
  binding_code: z
    .string()
    .regex(/^[0-9]{2}$/)
    .optional(),
});

/** `POST /token` 200 body for the CIBA grant; `token_type` is case-insensitive (RFC 6749 §7.1). */
export const tokenResponse: z.ZodType<TokenResponse, unknown> = z.object({
  access_token: z.string().min(1),
  token_type: z
    .string()
    .regex(/^bearer$/i)
    .transform(() => 'Bearer' as const),
  expires_in: z.number().nonnegative(),
  id_token: z.string().min(1),
  authorization_details: authorizationDetails,
});

const outcome = z.object({
  status: z.enum(['succeeded', 'failed']),
  reference: z.string().optional(),
  reason: z.string().optional(),
});

/** `POST /redeem` 200 body. */
export const redeemResponse: z.ZodType<RedeemResponse, unknown> = z.object({
  status: z.literal('redeemed'),
  redemption_id: z.string().min(1),
  idempotency_key: z.string().min(1),
  authorization_details: authorizationDetails,
  redeemed_at: z.string(),
});

/** A party of a request: the user it is for, or a holder of a role. */
const party = z.union([z.literal('customer'), z.templateLiteral(['role:', z.string().min(1)])]);

/** `GET /requests/{auth_req_id}` 200 body. */
export const clientRequestView: z.ZodType<ClientRequestView, unknown> = z.object({
  auth_req_id: z.string().min(1),
  state: z.enum(REQUEST_STATES),
  expires_at: z.string(),
  outcome: outcome.nullable(),
  // A server from before the field sends none: nothing known to be awaited.
  awaiting: z.array(party).default([]),
  // Servers from before escalation send neither: no chain, no reason.
  escalation: z
    .object({ step: z.number().int().min(0), steps: z.number().int().min(0), holder: z.array(party), next_at: z.string().nullable(), next: party.nullable() })
    .nullable()
    .default(null),
  expiry_reason: z.literal('escalation_exhausted').nullable().catch(null).default(null),
});

/** An OAuth 2.0 error body (RFC 6749 §5.2), with whatever extra members the server adds. */
const oauthError = z.looseObject({
  error: z.string().min(1),
  error_description: z.string().optional(),
});

/** Reads a body as JSON; `undefined` when it is empty or not JSON (a proxy's HTML page, say). */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Turns a non-2xx answer into a {@link CountersignError} carrying the server's `error` code, its
 * description, the HTTP status and any extra members (such as `redemption` on `already_redeemed`)
 * as `body`. A body without an OAuth error becomes `server_error` (or `temporarily_unavailable`
 * for a 503); an `error` word this client does not know is kept in `body.error`.
 *
 * @see RFC 6749 §5.2, CIBA Core 1.0 §11
 */
export function errorFromResponse(response: Response, json: unknown, endpoint: string): CountersignError {
  const parsed = oauthError.safeParse(json);
  if (!parsed.success) {
    const code: ErrorCode = response.status === 503 ? 'temporarily_unavailable' : 'server_error';
    return new CountersignError(code, `${endpoint} answered HTTP ${response.status} without an OAuth error body`, {
      status: response.status,
    });
  }
  const { error, error_description, ...rest } = parsed.data;
  const known = isErrorCode(error);
  return new CountersignError(known ? error : 'server_error', error_description ?? error, {
    status: response.status,
    body: known ? rest : { ...rest, error },
  });
}

/**
 * Reads a 2xx answer with `schema`, or throws the answer's {@link CountersignError}.
 *
 * @throws CountersignError with the server's code for an error answer, or `server_error` when a
 *   2xx body does not have the documented shape.
 */
export async function readResponse<T>(response: Response, schema: z.ZodType<T, unknown>, endpoint: string): Promise<T> {
  const json = await readJson(response);
  if (!response.ok) throw errorFromResponse(response, json, endpoint);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new CountersignError('server_error', `${endpoint} answered with an unexpected body`, {
      status: response.status,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** Reads an answer whose body does not matter, or throws its {@link CountersignError}. */
export async function readEmptyResponse(response: Response, endpoint: string): Promise<void> {
  const json = await readJson(response);
  if (!response.ok) throw errorFromResponse(response, json, endpoint);
}
