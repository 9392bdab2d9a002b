import { base64url, decisionChallenge, type ApprovalParty, type Decision, type DecisionPrompts } from '@countersign/shared';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import { partyFor, type Viewer } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import type { DeviceRecord } from './device-record.ts';

/** What the server remembers about one issued decision challenge until it is used (once). */
export interface ChallengeRecord {
  auth_req_id: string;
  decision: Decision;
  nonce: string;
  /** The user the prompt was made for (the person, or a reviewer). */
  sub: string;
  /** The party the user decides as; absent on prompts issued before parties existed (the customer). */
  party?: ApprovalParty;
  /** Number matching: the code this approve prompt stands for, signed into its challenge. */
  selected_code?: string;
}

type OptionsDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'config'>;

/**
 * WebAuthn authentication options for one decision on one request, by one user. The challenge is
 * SHA-256(JCS({auth_req_id, details_hash, decision, nonce})) with a fresh 256-bit nonce, handed to
 * `generateAuthenticationOptions` as bytes, so the passkey signs over exactly this action and this
 * decision; under number matching an approve prompt also signs `selected_code`, the code it
 * stands for. The challenge is remembered single-use until the request's deadline, with the user
 * and party it was made for (which are not in the challenge: who signs is the credential's business).
 *
 * @param devices - the deciding user's devices: only their passkeys are allowed.
 * @see DESIGN.md guarantee 4; WebAuthn Level 3 §5.5 and §13.4.3
 */
export async function decisionOptions(deps: OptionsDeps, request: ApprovalRequest, decision: Decision, devices: DeviceRecord[], by: { sub: string; party: ApprovalParty; selected_code?: string } = { sub: request.sub, party: 'customer' }) {
  const nonce = deps.ids(32);
  const signed = { auth_req_id: request.auth_req_id, details_hash: request.details_hash, decision, nonce, ...(by.selected_code === undefined ? {} : { selected_code: by.selected_code }) };
  const challenge = await decisionChallenge(signed);
  const record: ChallengeRecord = { auth_req_id: request.auth_req_id, decision, nonce, sub: by.sub, party: by.party, ...(by.selected_code === undefined ? {} : { selected_code: by.selected_code }) };
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

/**
 * The passkey prompts one user gets for a pending request, or null when they have nothing to
 * decide. A party still to approve gets `approve` and `deny`; under number matching the person the
 * request is for gets one approve prompt per candidate code instead of `approve`. The person the
 * request is for can always deny (and so say "this wasn't me") while it is pending, even after
 * approving their own part, until every party has approved.
 */
export async function decisionPrompts(deps: OptionsDeps, request: ApprovalRequest, viewer: Viewer, devices: DeviceRecord[]): Promise<DecisionPrompts | null> {
  const party = partyFor({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }, viewer);
  const isCustomer = viewer.sub === request.sub;
  if (!party && !isCustomer) return null;
  const by = { sub: viewer.sub, party: party ?? 'customer' };
  // Every prompt's challenge is stored at once: one round trip for all of them.
  const deny = decisionOptions(deps, request, 'deny', devices, by);
  if (!party) return { approve: null, deny: await deny };
  if (party === 'customer' && request.code_candidates) {
    const byCode = Promise.all(request.code_candidates.map(async (code) => [code, await decisionOptions(deps, request, 'approve', devices, { ...by, selected_code: code })] as const));
    const [denyOptions, approveByCode] = await Promise.all([deny, byCode]);
    return { approve: null, deny: denyOptions, approve_by_code: Object.fromEntries(approveByCode) };
  }
  const [denyOptions, approve] = await Promise.all([deny, decisionOptions(deps, request, 'approve', devices, by)]);
  return { approve, deny: denyOptions };
}
