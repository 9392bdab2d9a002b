import { base64url, decisionChallenge, type Decision } from '@countersign/shared';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import type { DeviceRecord } from './device-record.ts';

/** What the server remembers about one issued decision challenge until it is used (once). */
export interface ChallengeRecord {
  auth_req_id: string;
  decision: Decision;
  nonce: string;
  sub: string;
}

/**
 * WebAuthn authentication options for one decision on one request. The challenge is
 * SHA-256(JCS({auth_req_id, details_hash, decision, nonce})) with a fresh 256-bit nonce, handed to
 * `generateAuthenticationOptions` as bytes, so the passkey signs over exactly this action and this
 * decision. The challenge is remembered single-use until the request's deadline.
 *
 * @see DESIGN.md guarantee 4; WebAuthn Level 3 §5.5 and §13.4.3
 */
export async function decisionOptions(deps: Pick<Deps, 'store' | 'clock' | 'ids' | 'config'>, request: ApprovalRequest, decision: Decision, devices: DeviceRecord[]) {
  const nonce = deps.ids(32);
  const challenge = await decisionChallenge({ auth_req_id: request.auth_req_id, details_hash: request.details_hash, decision, nonce });
  const record: ChallengeRecord = { auth_req_id: request.auth_req_id, decision, nonce, sub: request.sub };
  // Kept a minute past the deadline, so a late answer is told "expired" rather than "unknown prompt".
  const ttl = secondsUntil(request.expires_at, deps.clock.now()) + 60;
  await deps.store.set(keys.decisionChallenge(request.tenant, base64url(challenge)), JSON.stringify(record), { ttlSeconds: ttl });
  return generateAuthenticationOptions({
    rpID: deps.config.rpId,
    challenge: new Uint8Array(challenge),
    userVerification: 'required',
    allowCredentials: devices.map((device) => ({ id: device.credential_id, transports: device.transports })),
    timeout: 120_000,
  });
}
