import { createEnrollmentLinkBody, decisionBody, enrollOptionsBody, enrollVerifyBody, pushSubscription, renameDeviceBody, reportBody } from '@countersign/shared';
import { z } from 'zod';
import { revokeMandateBody } from '../mandates/index.ts';
import { decidedRequest, deviceEnrollmentLink, deviceList, deviceSummary, history, inbox, mandateDetail, mandateList, mandateRevoked, registrationOptions, requestView, whoAmI } from './device-schemas.ts';
import { passkeyPrompt } from './display-schemas.ts';
import { BODY_ERRORS, COMMON_ERRORS, SESSION_ERRORS, type ErrorSpec } from './errors.ts';
import type { Method, Operation } from './operation.ts';

const json = (description: string, schema: z.ZodType) => ({ description, schema });
/** Every call that is not GET needs `Origin: PUBLIC_URL` (403 `invalid_origin`) and reads a body. */
const CHANGE: readonly ErrorSpec[] = [...COMMON_ERRORS, ...BODY_ERRORS, 'invalid_origin'];
/** A passkey's answer is checked: signature, user verification, the counter, the one-use challenge. */
const ASSERTION: readonly ErrorSpec[] = ['invalid_assertion', 'counter_regression'];

function device(method: Method, path: string, operation: Omit<Operation, 'method' | 'path' | 'tag' | 'caller'> & { caller?: Operation['caller'] }): Operation {
  const caller = operation.caller ?? 'session';
  const errors = [...(method === 'get' ? COMMON_ERRORS : CHANGE), ...(caller === 'session' ? SESSION_ERRORS : []), ...operation.errors];
  return { ...operation, method, path: `/api/device${path}`, tag: 'device', caller, errors };
}

/** The approver PWA's operations (docs/design.md "Approver PWA"), all under `/api/device`. */
export const DEVICE_OPERATIONS: readonly Operation[] = [
  device('post', '/enroll/options', {
    summary: 'WebAuthn registration options for an enrollment code',
    caller: 'public',
    body: { json: enrollOptionsBody },
    responses: { 200: json('Registration options (WebAuthn Level 3 §5.4).', registrationOptions) },
    errors: ['invalid_enrollment_code', 'too_many_devices', 'too_many_requests'],
  }),
  device('post', '/enroll/verify', {
    summary: 'Register the passkey; sets the device session cookie',
    caller: 'public',
    body: { json: enrollVerifyBody },
    responses: { 200: json('Enrolled; the session is set.', whoAmI) },
    errors: ['invalid_enrollment_code', 'invalid_assertion', 'credential_already_registered', 'too_many_devices', 'too_many_requests'],
  }),
  device('get', '/mandates', { summary: "The user's standing mandates", responses: { 200: json('Active first, then newest first.', mandateList) }, errors: [] }),
  device('get', '/mandates/:auth_req_id', { summary: 'One mandate and its revoke prompt', responses: { 200: json('The mandate.', mandateDetail) }, errors: ['not_found'] }),
  device('post', '/mandates/:auth_req_id/revoke', {
    summary: 'Revoke a mandate with the passkey',
    body: { json: revokeMandateBody },
    responses: { 200: json('Revoked.', mandateRevoked) },
    errors: [...ASSERTION, 'not_found', 'expired_token'],
  }),
  device('get', '/me', { summary: 'This device and its user', responses: { 200: json('Who this is.', whoAmI) }, errors: [] }),
  device('put', '/push-subscription', {
    summary: "Save this device's Web Push subscription",
    body: { json: pushSubscription },
    responses: { 204: { description: 'Saved.' } },
    errors: [],
  }),
  device('get', '/requests', { summary: 'The inbox: own pending requests and the reviewer queue', responses: { 200: json('The inbox.', inbox) }, errors: [] }),
  device('get', '/requests/:auth_req_id', {
    summary: 'One request, with the passkey prompts of this device',
    responses: { 200: json('`options` is null unless the request is pending.', requestView) },
    errors: ['not_found'],
  }),
  device('post', '/requests/:auth_req_id/decision', {
    summary: 'Approve or deny with the passkey',
    body: { json: decisionBody },
    responses: { 200: json('Decided.', decidedRequest) },
    errors: [...ASSERTION, 'not_found', 'request_not_pending', 'party_already_approved', 'party_escalated', 'wrong_binding_code', 'expired_token'],
  }),
  device('post', '/requests/:auth_req_id/report', {
    summary: '"This wasn\'t me": deny, report and block the client',
    body: { json: reportBody },
    responses: { 200: json('Denied and reported.', decidedRequest) },
    errors: [...ASSERTION, 'not_found', 'request_not_pending', 'expired_token'],
  }),
  device('get', '/history', { summary: 'Past requests, newest first', responses: { 200: json('The history.', history) }, errors: [] }),
  device('get', '/devices', { summary: "The user's devices", responses: { 200: json('The devices.', deviceList) }, errors: [] }),
  device('patch', '/devices/:device_id', {
    summary: 'Rename a device',
    body: { json: renameDeviceBody },
    responses: { 200: json('Renamed.', deviceSummary) },
    errors: ['not_found'],
  }),
  device('delete', '/devices/:device_id', { summary: 'Remove a device', responses: { 204: { description: 'Removed.' } }, errors: ['not_found'] }),
  device('post', '/enrollments/options', {
    summary: 'The passkey prompt for adding a device',
    responses: { 200: json('Authentication options (WebAuthn Level 3 §5.5).', passkeyPrompt) },
    errors: ['too_many_devices'],
  }),
  device('post', '/enrollments', {
    summary: 'A one-time link that adds another device',
    body: { json: createEnrollmentLinkBody },
    responses: { 201: json('The link and its QR code.', deviceEnrollmentLink) },
    errors: [...ASSERTION, 'too_many_devices'],
  }),
  device('get', '/events', {
    summary: 'Live updates (Server-Sent Events)',
    responses: {
      200: {
        description: 'An event stream: `ready`, then `request` ({auth_req_id, state}) when one of the user’s requests changes and `device` ({kind: device_removed, device_id, name, by, this_device, by_this_device}) when one of their devices is removed; the stream of the removed device ends after it.',
        schema: z.string(),
        contentType: 'text/event-stream',
      },
    },
    errors: [],
  }),
];
