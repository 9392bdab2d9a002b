import type { ApprovalParty, Decision, DecisionPrompts } from '@countersign/shared';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { Deps } from '../deps.ts';
import { partyFor, type Viewer } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import type { Fields } from '../store/index.ts';
import type { DeviceRecord } from './device-record.ts';
import { challengeTtl, livePrompts, mintChallenge } from './live-prompts.ts';
import { credentialDescriptor } from './transports.ts';

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

/** One passkey prompt a viewer gets: its name in the device's live set, its decision and, under number matching, its code. */
export interface PromptSpec {
  /** `deny`, `approve`, or `approve:<code>`. */
  name: string;
  decision: Decision;
  selected_code?: string;
}

/** The user a prompt is made for, and the party they decide as. */
export interface PromptOwner {
  sub: string;
  party: ApprovalParty;
}

type OptionsDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'config'>;

/**
 * The WebAuthn authentication options of one stored challenge: the challenge as bytes (not its
 * base64url text, which the library would UTF-8 encode), user verification required, and only the
 * deciding user's passkeys allowed.
 *
 * @see WebAuthn Level 3 §5.5 (`PublicKeyCredentialRequestOptions`)
 */
export function promptOptions(deps: Pick<Deps, 'config'>, challenge: string, devices: DeviceRecord[]) {
  return generateAuthenticationOptions({
    rpID: deps.config.rpId,
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    userVerification: 'required',
    allowCredentials: devices.map(credentialDescriptor),
    timeout: 120_000,
  });
}

/**
 * WebAuthn authentication options for one decision on one request, by one user, with a freshly
 * minted challenge ({@link mintChallenge}). A view uses {@link decisionPrompts}, which shows a
 * device its live challenges again instead.
 *
 * @param devices - the deciding user's devices: only their passkeys are allowed.
 * @see docs/design.md guarantee 4; WebAuthn Level 3 §5.5 and §13.4.3
 */
export async function decisionOptions(deps: OptionsDeps, request: ApprovalRequest, decision: Decision, devices: DeviceRecord[], by: PromptOwner & { selected_code?: string } = { sub: request.sub, party: 'customer' }) {
  const spec: PromptSpec = { name: decision, decision, ...(by.selected_code === undefined ? {} : { selected_code: by.selected_code }) };
  const challenge = await mintChallenge(deps, request, spec, by, challengeTtl(request, deps.clock.now()));
  return promptOptions(deps, challenge, devices);
}

/** The prompts one viewer needs on a pending request, and who they decide as; none when they have nothing to decide. */
function promptsFor(request: ApprovalRequest, viewer: Viewer): { by: PromptOwner; specs: PromptSpec[]; approve: 'none' | 'plain' | 'by_code' } | null {
  const party = partyFor({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }, viewer);
  const isCustomer = viewer.sub === request.sub;
  if (!party && !isCustomer) return null;
  const by = { sub: viewer.sub, party: party ?? 'customer' };
  const deny: PromptSpec = { name: 'deny', decision: 'deny' };
  if (!party) return { by, specs: [deny], approve: 'none' };
  if (party === 'customer' && request.code_candidates) {
    const byCode = request.code_candidates.map((code): PromptSpec => ({ name: `approve:${code}`, decision: 'approve', selected_code: code }));
    return { by, specs: [deny, ...byCode], approve: 'by_code' };
  }
  return { by, specs: [deny, { name: 'approve', decision: 'approve' }], approve: 'plain' };
}

/** The answer of {@link decisionPrompts}. */
export interface ViewPrompts {
  /** The prompts, or null when this user has nothing to decide. */
  options: DecisionPrompts | null;
  /** True for the first view of this request on this device: the one a `viewed` event is recorded for. */
  firstView: boolean;
}

/**
 * The passkey prompts one device gets for a pending request. A party still to approve gets
 * `approve` and `deny`; under number matching the person the request is for gets one approve prompt
 * per candidate code instead of `approve`. The person the request is for can always deny (and so
 * say "this wasn't me") while it is pending, even after approving their own part, until every party
 * has approved.
 *
 * Each prompt's challenge is the device's live one when it has one ({@link livePrompts}): viewing a
 * request again shows the same challenges, so views store nothing new; a challenge is minted only
 * where none is live (the first view, or after a verification attempt used it up).
 *
 * @param current - the device's live set as read beside the request (`readLivePrompts`), to save a round trip.
 * @see docs/design.md guarantee 4; docs/security.md "Refusals and views cannot grow storage without bound"
 */
export async function decisionPrompts(deps: OptionsDeps, request: ApprovalRequest, viewer: Viewer, devices: DeviceRecord[], deviceId: string, current?: Fields | null): Promise<ViewPrompts> {
  const wanted = promptsFor(request, viewer);
  const live = await livePrompts(deps, request, deviceId, wanted?.by ?? { sub: viewer.sub, party: 'customer' }, wanted?.specs ?? [], current);
  if (!wanted) return { options: null, firstView: live.firstView };
  const optionsOf = (name: string) => promptOptions(deps, live.challenges.get(name)!, devices);
  const deny = await optionsOf('deny');
  if (wanted.approve === 'none') return { options: { approve: null, deny }, firstView: live.firstView };
  if (wanted.approve === 'by_code') {
    const byCode = await Promise.all(request.code_candidates!.map(async (code) => [code, await optionsOf(`approve:${code}`)] as const));
    return { options: { approve: null, deny, approve_by_code: Object.fromEntries(byCode) }, firstView: live.firstView };
  }
  return { options: { approve: await optionsOf('approve'), deny }, firstView: live.firstView };
}
