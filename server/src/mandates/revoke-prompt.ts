import { base64url, canonicalize, CountersignError, sha256 } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { auditRefusal, checkPasskey, listDevices, promptOptions, readChallenge, type DeviceSession } from '../devices/index.ts';
import { isRequestId, requestOf, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';

/** How long a revoke prompt stays usable, seconds. */
const REVOKE_PROMPT_TTL_SECONDS = 300;

/** What the server keeps of a revoke prompt until it is answered (once). */
interface RevokeChallenge {
  auth_req_id: string;
  decision: 'revoke';
  nonce: string;
  sub: string;
}

/** The challenge a revocation signs: SHA-256(JCS({auth_req_id, details_hash, decision: 'revoke', nonce})), base64url. @see docs/design.md guarantee 4 */
async function revokeChallenge(request: ApprovalRequest, nonce: string): Promise<string> {
  return base64url(await sha256(canonicalize({ auth_req_id: request.auth_req_id, details_hash: request.details_hash, decision: 'revoke', nonce })));
}

/**
 * WebAuthn authentication options for revoking one mandate: a fresh random nonce, the challenge
 * over the mandate's `details_hash` and `decision: 'revoke'` (as bytes), user verification
 * required, only the person's passkeys allowed. The nonce's record is single use (see
 * {@link verifyRevoke}) and lives {@link REVOKE_PROMPT_TTL_SECONDS}.
 * @see WebAuthn Level 3 §5.5
 */
export async function revokeOptions(deps: Pick<Deps, 'store' | 'ids' | 'config'>, request: ApprovalRequest) {
  const nonce = deps.ids(16);
  const challenge = await revokeChallenge(request, nonce);
  const record: RevokeChallenge = { auth_req_id: request.auth_req_id, decision: 'revoke', nonce, sub: request.sub };
  const [, devices] = await Promise.all([deps.store.set(keys.decisionChallenge(request.tenant, challenge), JSON.stringify(record), { ttlSeconds: REVOKE_PROMPT_TTL_SECONDS }), listDevices(deps.store, request.tenant, request.sub)]);
  return promptOptions(deps, challenge, devices);
}

/**
 * Verifies the passkey assertion of a revocation: the challenge it names is taken from the store
 * first (GETDEL: used once, pass or fail), must have been issued to this user for this mandate and
 * `revoke`, is recomputed from the stored `details_hash`, and the assertion must verify (origin, RP
 * ID, user verification, this user's passkey, a growing counter) by `checkPasskey`. A refusal is
 * audited on the device channel.
 *
 * @returns the mandate's request and the device that signed.
 * @throws CountersignError `invalid_assertion` (400), `counter_regression` (400), `not_found` (404).
 */
export async function verifyRevoke(deps: Deps, session: DeviceSession, authReqId: string, response: Record<string, unknown>): Promise<{ request: ApprovalRequest; device_id: string }> {
  const read = readChallenge(response);
  const [taken, fields] = await Promise.all([read.challenge ? deps.store.take(keys.decisionChallenge(session.tenant, read.challenge)) : null, isRequestId(authReqId) ? deps.store.hashGet(keys.request(session.tenant, authReqId)) : null]);
  const record = taken ? (JSON.parse(taken) as Partial<RevokeChallenge>) : null;
  const request = requestOf(fields);
  const refuse = async (reason: 'invalid_assertion' | 'counter_regression', description: string, cause?: unknown) => {
    await auditRefusal(deps, session, request ? authReqId : null, reason, { decision: 'revoke' });
    return new CountersignError(reason, description, cause === undefined ? {} : { cause });
  };
  if (!request || request.sub !== session.sub) throw new CountersignError('not_found', 'No such mandate.');
  if (!record || record.decision !== 'revoke' || record.auth_req_id !== authReqId || record.sub !== session.sub || !record.nonce) {
    throw await refuse('invalid_assertion', 'This revoke prompt is not valid any more. Open the mandate again.');
  }
  const expected = await revokeChallenge(request, record.nonce);
  const device = (await listDevices(deps.store, session.tenant, session.sub)).find((candidate) => candidate.credential_id === response.id);
  if (expected !== read.challenge || !device) throw await refuse('invalid_assertion', 'The passkey answer does not match this mandate.');
  const check = await checkPasskey(deps, device, response, expected, deps.clock.now());
  if (!check.ok) throw await refuse(check.reason, check.description, check.cause);
  return { request, device_id: check.device.device_id };
}
