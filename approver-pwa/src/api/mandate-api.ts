import type { MandateDetailResponse, MandateListResponse, MandateRevokeResponse, MandateView } from '@countersign/shared';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { requestJson } from './request-json.ts';

const mandatePath = (authReqId: string) => `/api/device/mandates/${encodeURIComponent(authReqId)}`;

/** One mandate and, while it is active, the passkey prompt that revokes it (valid 5 minutes, once). */
export interface MandateDetail {
  mandate: MandateView;
  /** Bound to this mandate, its details hash and `revoke` (guarantee 4); absent when it is not active. */
  revoke: PublicKeyCredentialRequestOptionsJSON | null;
}

/** The user's mandates, active first, then newest first (docs/mandates.md). */
export async function listMandates(signal?: AbortSignal): Promise<MandateView[]> {
  return (await requestJson<MandateListResponse>('GET', '/api/device/mandates', undefined, signal)).mandates;
}

/** One of the user's mandates with its revoke prompt. @throws {ApiError} `not_found` (none, or another user's). */
export async function getMandate(authReqId: string, signal?: AbortSignal): Promise<MandateDetail> {
  const body = await requestJson<MandateDetailResponse>('GET', mandatePath(authReqId), undefined, signal);
  return { mandate: body.mandate, revoke: (body.options.revoke as unknown as PublicKeyCredentialRequestOptionsJSON | undefined) ?? null };
}

/**
 * Revokes a mandate with the passkey's answer to its revoke prompt; answers the mandate, now revoked.
 * @throws {ApiError} `invalid_assertion` (a used or stale prompt: open the mandate again), `counter_regression`, `not_found`.
 */
export async function revokeMandate(authReqId: string, response: AuthenticationResponseJSON): Promise<MandateView> {
  return (await requestJson<MandateRevokeResponse>('POST', `${mandatePath(authReqId)}/revoke`, { response })).mandate;
}
