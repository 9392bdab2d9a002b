import type { Decision, DecisionPrompts, DeviceEnrollmentLink, DeviceSummary, HistoryEntry, PushSubscriptionJSON, RequestDisplay } from '@countersign/shared';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { requestJson } from './request-json.ts';

/** The enrolled user and device, and the server's VAPID key for push (RFC 8292). */
export interface DeviceSession {
  user: { sub: string; display_name?: string | null };
  device: { device_id: string; name: string };
  /** The server's VAPID public key, base64url: the push subscription's `applicationServerKey`. */
  vapid_public_key: string;
}

/** One request and, while this user can decide on it, the passkey prompts. */
export interface RequestView {
  request: RequestDisplay;
  /**
   * Each prompt's challenge is bound to this request, its details hash and that decision
   * (guarantee 4); under number matching there is one approve prompt per candidate code
   * (`approve_by_code`) and `approve` is null. `deny` also answers "this wasn't me".
   */
  options: DecisionPrompts<PublicKeyCredentialRequestOptionsJSON> | null;
}

/** The server-sent events stream: an event named `request` with {@link RequestEvent} data. */
export const DEVICE_EVENTS_URL = '/api/device/events';

const requestPath = (authReqId: string) => `/api/device/requests/${encodeURIComponent(authReqId)}`;
const devicePath = (deviceId: string) => `/api/device/devices/${encodeURIComponent(deviceId)}`;

/**
 * This device's session. @throws {ApiError} `login_required` when this browser is not enrolled.
 */
export function getSession(signal?: AbortSignal): Promise<DeviceSession> {
  return requestJson('GET', '/api/device/me', undefined, signal);
}

/**
 * WebAuthn registration options for an enrollment code.
 * @throws {ApiError} `invalid_enrollment_code`; `too_many_devices` (the user is at the device cap; the code stays usable).
 */
export function getEnrollmentOptions(enrollmentCode: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return requestJson('POST', '/api/device/enroll/options', { enrollment_code: enrollmentCode });
}

/**
 * Registers the new passkey; the server answers with the session and sets its cookie.
 * @throws {ApiError} `invalid_enrollment_code`, `invalid_request`, `invalid_assertion`,
 *   `credential_already_registered` (the code is spent either way); `too_many_devices` (the code is kept).
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
 * Sends a decision signed by the passkey; answers with the request as it now stands. Under number
 * matching, `selectedCode` is the code picked, and `response` answers that code's approve prompt.
 * @throws {ApiError} `request_not_pending`, `invalid_assertion`, `counter_regression`,
 *   `wrong_binding_code` (a wrong number-matching pick: the request is now denied),
 *   `party_already_approved`, `party_escalated` (the window passed and the request went to the next approver).
 */
export async function postDecision(authReqId: string, decision: Decision, response: AuthenticationResponseJSON, selectedCode?: string): Promise<RequestDisplay> {
  const body = await requestJson<{ request: RequestDisplay }>('POST', `${requestPath(authReqId)}/decision`, { decision, response, ...(selectedCode === undefined ? {} : { selected_code: selectedCode }) });
  return body.request;
}

/**
 * "This wasn't me": answers the deny prompt; the server denies the request, records a fraud
 * report and blocks the client from asking this user again.
 * @throws {ApiError} `request_not_pending`, `invalid_assertion`, `invalid_request`.
 */
export async function postReport(authReqId: string, response: AuthenticationResponseJSON): Promise<RequestDisplay> {
  const body = await requestJson<{ request: RequestDisplay }>('POST', `${requestPath(authReqId)}/report`, { response });
  return body.request;
}

/** The user's past requests, newest first. */
export async function getHistory(signal?: AbortSignal): Promise<HistoryEntry[]> {
  return (await requestJson<{ entries: HistoryEntry[] }>('GET', '/api/device/history', undefined, signal)).entries;
}

/** The user's devices, oldest first, this one flagged. */
export async function listDevices(signal?: AbortSignal): Promise<DeviceSummary[]> {
  return (await requestJson<{ devices: DeviceSummary[] }>('GET', '/api/device/devices', undefined, signal)).devices;
}

/** Renames one of the user's devices. @throws {ApiError} `not_found`, `invalid_request`. */
export function renameDevice(deviceId: string, name: string): Promise<DeviceSummary> {
  return requestJson('PATCH', devicePath(deviceId), { name });
}

/** Removes one of the user's devices (this one signs this browser out). @throws {ApiError} `not_found`. */
export async function removeDevice(deviceId: string): Promise<void> {
  await requestJson('DELETE', devicePath(deviceId));
}

/**
 * The passkey prompt that confirms adding a device (this user's passkeys, user verification required).
 * @throws {ApiError} `too_many_devices` when the user is at the device cap.
 */
export function getEnrollmentLinkOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return requestJson('POST', '/api/device/enrollments/options');
}

/**
 * A one-time link (and its QR code) that adds another device to this user, for the passkey's
 * answer to {@link getEnrollmentLinkOptions}. @throws {ApiError} `invalid_assertion`, `too_many_devices`.
 */
export function createEnrollmentLink(response: AuthenticationResponseJSON): Promise<DeviceEnrollmentLink> {
  return requestJson('POST', '/api/device/enrollments', { response });
}
