import { base64url, CountersignError, decisionChallenge, type Decision } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { canView, type Viewer } from '../policy/index.ts';
import { isRequestId, requestOf, settleExpiry, type ApprovalRequest } from '../requests/index.ts';
import { keys, type Fields } from '../store/index.ts';
import { checkPasskey, readChallenge } from './check-passkey.ts';
import type { ChallengeRecord } from './decision-options.ts';
import type { ApprovalEvidence } from './approval-evidence.ts';
import { findDevice, listDevices, type DeviceRecord } from './device-record.ts';
import type { DeviceSession } from './session.ts';

/** A passkey assertion that verified: the prompt it answered, the pending request, the passkey. */
export interface VerifiedAssertion {
  record: ChallengeRecord;
  request: ApprovalRequest;
  /**
   * The request's hash fields as read with the challenge (pending, before its deadline): a
   * compare-and-swap may start from them instead of reading again; any change since fails its guards.
   */
  fields: Fields;
  device: DeviceRecord;
  /** The challenge's input, whose SHA-256 the assertion signed. */
  signed: ApprovalEvidence['signed'];
}

/**
 * Audits a refused decision on the device channel. It names the request (and so enters the
 * request's audit view) only for an id of a request that exists; `null` (a request that does not
 * exist) and a malformed id go to the tenant's trail only, so decisions sent to made-up ids cannot
 * open a per-request index each.
 */
export function auditRefusal(deps: Pick<Deps, 'audit'>, session: DeviceSession, authReqId: string | null, reason: string, detail: Record<string, string | number | boolean>, device?: DeviceRecord, options: { once?: string } = {}) {
  return deps.audit.record(
    { type: 'refused', reason, tenant: session.tenant, ...(authReqId !== null && isRequestId(authReqId) ? { auth_req_id: authReqId } : {}), sub: session.sub, channel: 'device', device_id: device?.device_id ?? session.device_id, ...(device ? { credential_id: device.credential_id } : {}), detail },
    options,
  );
}

/**
 * Verifies a passkey assertion answering a decision prompt, for a user who may see the request.
 *
 * The challenge named in the assertion is taken from the store (GETDEL) before anything else, so
 * it is used once, pass or fail. It must have been issued for this request, this decision and this
 * user; it is recomputed from the stored `details_hash` (and, for a number-matching approval, the
 * code the prompt stood for); the assertion must verify with user verification, for this origin and
 * RP ID, by one of this user's passkeys. Then, and only then, the signature counter is compared
 * and saved ({@link checkPasskey}): one that does not grow (other than 0 after 0) suggests a cloned
 * authenticator, refused and audited; a forged assertion is `invalid_assertion` whatever its counter.
 * The library's error, when it threw one, is the refusal's `cause` (never in the response).
 *
 * @throws CountersignError `invalid_assertion`, `counter_regression`, `not_found`, `expired_token`,
 *   `request_not_pending` (409).
 * @see docs/design.md guarantee 4; WebAuthn Level 3 §7.2 (verifying an authentication assertion)
 */
export async function verifyAssertion(deps: Deps, session: DeviceSession, viewer: Viewer, authReqId: string, decision: Decision, response: Record<string, unknown>): Promise<VerifiedAssertion> {
  const read = readChallenge(response);
  const challenge = read.challenge;
  // The take goes first on the wire; the request and the user's passkeys are read beside it (reads
  // change nothing, and nothing read is used before the challenge has been checked).
  // The calling device's own passkey is the one that answers, nearly always: read it alone, and the
  // user's other devices only when the answer came from one of those (a passkey synced elsewhere).
  const [taken, fields, own] = await Promise.all([challenge ? deps.store.take(keys.decisionChallenge(session.tenant, challenge)) : null, isRequestId(authReqId) ? deps.store.hashGet(keys.request(session.tenant, authReqId)) : null, findDevice(deps.store, session.tenant, session.sub, session.device_id)]);
  const record = taken ? (JSON.parse(taken) as ChallengeRecord) : null;
  const refuse = async (reason: 'invalid_assertion' | 'counter_regression', description: string, device?: DeviceRecord, cause?: unknown) => {
    // Filed under the request only when there is one (read above, in this tenant).
    await auditRefusal(deps, session, fields ? authReqId : null, reason, { decision }, device);
    return new CountersignError(reason, description, cause === undefined ? {} : { cause });
  };
  if (read.challenge === null && read.cause !== undefined) throw await refuse('invalid_assertion', 'The passkey answer could not be read.', undefined, read.cause);
  if (!record || record.auth_req_id !== authReqId || record.decision !== decision || record.sub !== session.sub) {
    throw await refuse('invalid_assertion', 'This approval prompt is not valid any more. Open the request again.');
  }

  let request = requestOf(fields);
  // A device sees only its own user's requests and those its user reviews (docs/design.md guarantee 5).
  if (!request || !canView({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [], held_before: request.held_before ?? [] }, viewer)) {
    throw new CountersignError('not_found', 'No such request.');
  }
  request = await settleExpiry(deps, request);
  if (request.state === 'expired') throw new CountersignError('expired_token', 'The request has expired.');
  if (request.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${request.state}.`);

  const signed = { auth_req_id: authReqId, details_hash: request.details_hash, decision, nonce: record.nonce, ...(record.selected_code === undefined ? {} : { selected_code: record.selected_code }) };
  const expected = base64url(await decisionChallenge(signed));
  // The session's device was on the account when the session was checked, and `checkPasskey` below
  // checks again as it saves the counter: a device removed meanwhile decides nothing either way.
  const device = own && own.credential_id === response.id ? own : (await listDevices(deps.store, session.tenant, session.sub)).find((candidate) => candidate.credential_id === response.id);
  if (expected !== challenge || !device) throw await refuse('invalid_assertion', 'The passkey answer does not match this request.', device);

  const check = await checkPasskey(deps, device, response, expected, deps.clock.now());
  if (!check.ok) throw await refuse(check.reason, check.description, device, check.cause);
  return { record, request, fields: fields!, device: check.device, signed };
}
