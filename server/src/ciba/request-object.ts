import { CountersignError } from '@countersign/shared';
import { errors, type JWTPayload } from 'jose';
import { CLIENT_JWT_LEEWAY_SECONDS, verifyClientJwt, type ClientRecord, type ClientSigningAlg } from '../clients/index.ts';
import { requestObjectParams } from './request-object-params.ts';

/** The longest life a signed authentication request may have, `exp − nbf`, in seconds. @see FAPI-CIBA §5.2.2 item 4 */
export const MAX_REQUEST_OBJECT_LIFETIME_SECONDS = 3600;

/** The only parameters that may sit beside `request`: those of client authentication. @see CIBA Core 1.0 §7.1.1 */
const BESIDE_REQUEST = new Set(['request', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type']);

/** A verified request object's `jti` and `exp` (seconds), for the route to use once before it stores anything. @see CIBA Core 1.0 §7.1.1 */
export interface RequestObjectUse {
  jti: string;
  exp: number;
}

/** The effective authentication request parameters, and the request object they came from if any. @see CIBA Core 1.0 §7.1 */
export interface AuthenticationParams {
  params: Record<string, string>;
  requestObject: RequestObjectUse | null;
}

function refuse(description: string, cause?: unknown): CountersignError {
  return new CountersignError('invalid_request', `request: ${description}`, cause === undefined ? undefined : { cause });
}

/** Says which check a jose error stands for: the client is authenticated by now, so it may know. */
function describeJoseError(error: unknown): string {
  if (error instanceof errors.JWTClaimValidationFailed) return `the ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'not acceptable'}.`;
  if (error instanceof errors.JWTExpired) return 'it has expired.';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'the signing algorithm is not accepted for this client.';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) return "the signature does not verify with the client's keys.";
  return 'not a valid signed JWT.';
}

/**
 * Verifies a signed authentication request: signed ES256 or PS256 (exactly the client's
 * registered `backchannel_authentication_request_signing_alg` when it has one) with a key of the
 * client's JWKS; `iss` = `client_id`; `aud` holding the issuer; `exp`, `iat`, `nbf` and `jti`
 * present; `nbf` and `iat` not in the future (beyond a small leeway); `exp − nbf` at most 60 minutes.
 *
 * @returns the verified claims.
 * @throws CountersignError `invalid_request` for any failure (CIBA Core §13 defines no
 *   `invalid_request_object`).
 * @see CIBA Core 1.0 §7.1.1, FAPI-CIBA §5.2.2, RFC 7519 §4.1
 */
export async function verifyRequestObject(jwt: string, client: ClientRecord, issuer: string, nowMs: number): Promise<JWTPayload & RequestObjectUse> {
  const registered = client.backchannel_authentication_request_signing_alg;
  const algorithms: ClientSigningAlg[] = registered ? [registered] : ['ES256', 'PS256'];
  if (!client.jwks) throw refuse('the client registered no keys to verify it with.');
  let claims: JWTPayload;
  try {
    claims = await verifyClientJwt(jwt, client, { algorithms, audience: [issuer], issuer: client.client_id, requiredClaims: ['exp', 'iat', 'nbf', 'jti'], nowMs });
  } catch (error) {
    throw refuse(describeJoseError(error), error);
  }
  const { exp, iat, nbf, jti } = claims;
  const latest = nowMs / 1000 + CLIENT_JWT_LEEWAY_SECONDS;
  if (typeof exp !== 'number' || typeof iat !== 'number' || typeof nbf !== 'number') throw refuse('exp, iat and nbf must be numbers.');
  if (iat > latest) throw refuse('iat is in the future.');
  if (exp - nbf > MAX_REQUEST_OBJECT_LIFETIME_SECONDS) throw refuse('exp - nbf exceeds 60 minutes.');
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw refuse('jti must be a string of 1 to 256 characters.');
  return { ...claims, exp, jti };
}

/**
 * The authentication request parameters of a `/bc-authorize` call, plain or signed. A signed
 * request (`request`) carries them all as claims: any other parameter beside it but those of
 * client authentication is refused. A client that registered a signing algorithm must sign.
 * Verifies, but records nothing: the route uses the `jti` once, after validation, before storing.
 *
 * @param form - the parsed form.
 * @throws CountersignError `invalid_request` (unsigned when a signature is required, parameters
 *   outside the JWT, a bad request object), `invalid_authorization_details`.
 * @see CIBA Core 1.0 §7.1 and §7.1.1, FAPI-CIBA §5.2.2
 */
export async function readAuthenticationParams(form: Record<string, string>, client: ClientRecord, issuer: string, nowMs: number): Promise<AuthenticationParams> {
  if (form.request === undefined) {
    if (client.backchannel_authentication_request_signing_alg) {
      throw new CountersignError('invalid_request', 'This client must send its authentication request signed, as request.');
    }
    return { params: form, requestObject: null };
  }
  const outside = Object.keys(form).filter((name) => !BESIDE_REQUEST.has(name));
  if (outside.length > 0) throw refuse(`parameters must be inside the request object, not beside it: ${outside.join(', ')}.`);
  const claims = await verifyRequestObject(form.request, client, issuer, nowMs);
  return { params: requestObjectParams(form.request, claims, client), requestObject: { jti: claims.jti, exp: claims.exp } };
}
