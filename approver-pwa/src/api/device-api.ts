import type { Decision, PushSubscriptionJSON, RequestDisplay } from '@countersign/shared';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { requestJson } from './request-json.ts';

/** The enrolled user and device, and the server's VAPID key for push (RFC 8292). */
export interface DeviceSession {
  user: { sub: string; display_name?: string | null };
  device: { device_id: string; name: string };
  /** The server's VAPID public key, base64url: the push subscription's `applicationServerKey`. */
  vapid_public_key: string;
}

/** One request and, while it is pending, one set of WebAuthn options per decision. */
export interface RequestView {
  request: RequestDisplay;
  /** Each set's challenge is bound to this request, its details hash and that decision (guarantee 4). */
  options: Record<Decision, PublicKeyCredentialRequestOptionsJSON> | null;
}

/** The server-sent events stream: an event named `request` with {@link RequestEvent} data. */
export const DEVICE_EVENTS_URL = '/api/device/events';

const requestPath = (authReqId: string) => `/api/device/requests/${encodeURIComponent(authReqId)}`;

/**
 * This device's session. @throws {ApiError} `login_required` when this browser is not enrolled.
 */
export function getSession(signal?: AbortSignal): Promise<DeviceSession> {
  return requestJson('GET', '/api/device/me', undefined, signal);
}

/** WebAuthn registration options for an enrollment code. @throws {ApiError} `invalid_enrollment_code`. */
export function getEnrollmentOptions(enrollmentCode: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return requestJson('POST', '/api/device/enroll/options', { enrollment_code: enrollmentCode });
}

/**
 * Registers the new passkey; the server answers with the session and sets its cookie.
 * @throws {ApiError} `invalid_enrollment_code`, `invalid_request`.
 */
export function verifyEnrollment(enrollmentCode: string, response: RegistrationResponseJSON, deviceName: string): Promise<DeviceSession> {
  return requestJson('POST', '/api/device/enroll/verify', { enrollment_code: enrollmentCode, response, device_name: deviceName });
}

/** Stores this browser's push subscription (RFC 8030) for the device. */
export function putPushSubscription(subscription: PushSubscriptionJSON): Promise<unknown> {
  return requestJson('PUT', '/api/device/push-subscription', subscription);
}

/** The user's pending requests, with the display the server computed. */
export async function listRequests(signal?: AbortSignal): Promise<RequestDisplay[]> {
  const body = await requestJson<{ requests: RequestDisplay[] }>('GET', '/api/device/requests', undefined, signal);
  return body.requests;
}

/** One request of this user. @throws {ApiError} `not_found`. */
export function getRequest(authReqId: string, signal?: AbortSignal): Promise<RequestView> {
  return requestJson('GET', requestPath(authReqId), undefined, signal);
}

/**
 * Sends a decision signed by the passkey; answers with the request as it now stands.
 * @throws {ApiError} `request_not_pending`, `invalid_assertion`, `counter_regression`.
 */
export async function postDecision(authReqId: string, decision: Decision, response: AuthenticationResponseJSON): Promise<RequestDisplay> {
  const body = await requestJson<{ request: RequestDisplay }>('POST', `${requestPath(authReqId)}/decision`, { decision, response });
  return body.request;
}
