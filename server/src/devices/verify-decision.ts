import { base64url, CountersignError, decisionChallenge, type Decision } from '@countersign/shared';
import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import { fromFields, isRequestId, loadRequest, settleExpiry, untrackDeadline, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import type { ChallengeRecord } from './decision-options.ts';
import { listDevices, saveDevice, type DeviceRecord } from './device-record.ts';
import type { DeviceSession } from './session.ts';

function clientChallenge(response: Record<string, unknown>): string | null {
  try {
    const inner = response.response as { clientDataJSON?: unknown } | undefined;
    if (typeof inner?.clientDataJSON !== 'string') return null;
    const clientData = JSON.parse(Buffer.from(inner.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' && /^[A-Za-z0-9_-]{43}$/.test(clientData.challenge) ? clientData.challenge : null;
  } catch {
    return null;
  }
}

/** The signature counter in the authenticator data (bytes 33–36, big-endian; WebAuthn Level 3 §6.1). */
function signCount(response: Record<string, unknown>): number | null {
  const data = (response.response as { authenticatorData?: unknown } | undefined)?.authenticatorData;
  if (typeof data !== 'string') return null;
  const bytes = Buffer.from(data, 'base64url');
  return bytes.length >= 37 ? bytes.readUInt32BE(33) : null;
}

/**
 * Verifies a person's decision on a request and moves it: `pending → approved` or
 * `pending → denied`, in one compare-and-swap guarded by the deadline; then schedules the ping or
 * push to the client, if it uses one.
 *
 * The challenge named in the assertion is taken from the store (GETDEL) before anything else, so
 * it is used once, pass or fail. It must have been issued for this request, this decision and this
 * user; it is recomputed from the stored `details_hash`; the assertion must verify with user
 * verification, for this origin and RP ID, by one of the user's passkeys. A signature counter that
 * does not grow (other than 0 after 0) suggests a cloned authenticator: refused and audited.
 *
 * @throws CountersignError `invalid_assertion`, `counter_regression`, `not_found`, `expired_token`,
 *   `request_not_pending` (409).
 * @see DESIGN.md guarantee 4; WebAuthn Level 3 §7.2 (verifying an authentication assertion)
 */
export async function verifyDecision(deps: Deps, session: DeviceSession, authReqId: string, decision: Decision, response: Record<string, unknown>): Promise<ApprovalRequest> {
  const challenge = clientChallenge(response);
  const taken = challenge ? await deps.store.take(keys.decisionChallenge(session.tenant, challenge)) : null;
  const record = taken ? (JSON.parse(taken) as ChallengeRecord) : null;
  // The id comes from the URL: a malformed one is audited on the tenant's trail only, never used as a key.
  const audit = (reason: string, device?: DeviceRecord) =>
    deps.audit.record({ type: 'refused', reason, tenant: session.tenant, ...(isRequestId(authReqId) ? { auth_req_id: authReqId } : {}), sub: session.sub, channel: 'device', device_id: device?.device_id ?? session.device_id, ...(device ? { credential_id: device.credential_id } : {}), detail: { decision } });
  if (!record || record.auth_req_id !== authReqId || record.decision !== decision || record.sub !== session.sub) {
    await audit('invalid_assertion');
    throw new CountersignError('invalid_assertion', 'This approval prompt is not valid any more. Open the request again.');
  }

  let request = await loadRequest(deps.store, session.tenant, authReqId);
  if (!request || request.sub !== session.sub) throw new CountersignError('not_found', 'No such request.');
  request = await settleExpiry(deps, request);
  if (request.state === 'expired') throw new CountersignError('expired_token', 'The request has expired.');
  if (request.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${request.state}.`);

  const expected = base64url(await decisionChallenge({ auth_req_id: authReqId, details_hash: request.details_hash, decision, nonce: record.nonce }));
  const device = (await listDevices(deps.store, session.tenant, session.sub)).find((candidate) => candidate.credential_id === response.id);
  if (expected !== challenge || !device) {
    await audit('invalid_assertion', device);
    throw new CountersignError('invalid_assertion', 'The passkey answer does not match this request.');
  }

  const counter = signCount(response);
  if (counter === null || ((counter > 0 || device.counter > 0) && counter <= device.counter)) {
    await audit('counter_regression', device);
    throw new CountersignError('counter_regression', 'This passkey reported a signature counter that did not increase.');
  }

  let verified = false;
  try {
    const result = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: expected,
      expectedOrigin: deps.config.publicUrl,
      expectedRPID: deps.config.rpId,
      credential: { id: device.credential_id, publicKey: Buffer.from(device.public_key, 'base64url'), counter: device.counter, transports: device.transports },
      requireUserVerification: true,
    });
    verified = result.verified && result.authenticationInfo.userVerified;
  } catch {
    verified = false;
  }
  if (!verified) {
    await audit('invalid_assertion', device);
    throw new CountersignError('invalid_assertion', 'The passkey answer could not be verified.');
  }

  const now = deps.clock.now();
  await saveDevice(deps.store, { ...device, counter, last_used_at: now });
  const approve = decision === 'approve';
  const result = await deps.store.compareAndSet(
    keys.request(session.tenant, authReqId),
    [
      { field: 'state', op: 'eq', value: 'pending' },
      { field: 'expires_at', op: 'gt', value: now },
    ],
    {
      state: approve ? 'approved' : 'denied',
      decided_at: String(now),
      decided_by: device.device_id,
      ...(approve ? { approval_expires_at: String(now + deps.config.approvalTokenTtl * 1000) } : {}),
    },
    { ttlSeconds: (approve ? deps.config.approvalTokenTtl : 0) + deps.config.graceSeconds },
  );
  if (!result.ok) {
    const current = result.fields ? fromFields(result.fields) : null;
    if (current && current.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${current.state}.`);
    throw new CountersignError('expired_token', 'The request has expired.');
  }
  await Promise.all([
    deps.store.setRemove(keys.userRequests(session.tenant, session.sub), authReqId),
    untrackDeadline(deps.store, { tenant: session.tenant, auth_req_id: authReqId }),
  ]);
  await deps.audit.record({
    type: approve ? 'approved' : 'denied',
    tenant: session.tenant,
    auth_req_id: authReqId,
    client_id: request.client_id,
    sub: session.sub,
    device_id: device.device_id,
    credential_id: device.credential_id,
    channel: 'device',
  });
  deps.events.publish(session.tenant, session.sub, { auth_req_id: authReqId, state: approve ? 'approved' : 'denied' });
  const decided = fromFields(result.fields!);
  // A ping or push client is told now (CIBA Core §10.2, §10.3); a poll client finds out at /token.
  deps.notifier.requestSettled(decided);
  return decided;
}
