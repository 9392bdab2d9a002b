import { base64url, decisionChallenge } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { isRequestId, type ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { type Fields, type Guard, keys, type RecordStore } from '../store/index.ts';
import type { ChallengeRecord, PromptOwner, PromptSpec } from './decision-options.ts';

/** Seconds a challenge is kept: a minute past the deadline, so a late answer is told "expired" rather than "unknown prompt". */
export function challengeTtl(request: ApprovalRequest, nowMs: number): number {
  return secondsUntil(request.expires_at, nowMs) + 60;
}

/**
 * A new decision challenge, not yet stored: SHA-256(JCS({auth_req_id, details_hash, decision,
 * nonce})) with a fresh 256-bit nonce (under number matching an approve prompt also signs
 * `selected_code`, the code it stands for), so the passkey signs over exactly this action and this
 * decision; and the record kept with it, which names the user and party it was made for (not in the
 * challenge: who signs is the credential's business).
 *
 * @returns the challenge (base64url) and its record.
 * @see docs/design.md guarantee 4; WebAuthn Level 3 §13.4.3 (cryptographic challenges)
 */
export async function newChallenge(deps: Pick<Deps, 'ids'>, request: ApprovalRequest, spec: PromptSpec, by: PromptOwner): Promise<{ challenge: string; record: ChallengeRecord }> {
  const nonce = deps.ids(32);
  const code = spec.selected_code === undefined ? {} : { selected_code: spec.selected_code };
  const challenge = base64url(await decisionChallenge({ auth_req_id: request.auth_req_id, details_hash: request.details_hash, decision: spec.decision, nonce, ...code }));
  return { challenge, record: { auth_req_id: request.auth_req_id, decision: spec.decision, nonce, sub: by.sub, party: by.party, ...code } };
}

/** Stores a challenge's record single-use (taken with GETDEL by the first verification attempt, pass or fail). */
export function storeChallenge(store: RecordStore, tenant: string, challenge: string, record: ChallengeRecord, ttlSeconds: number): Promise<boolean> {
  return store.set(keys.decisionChallenge(tenant, challenge), JSON.stringify(record), { ttlSeconds });
}

/** Mints and stores one challenge ({@link newChallenge}); answers it, base64url. */
export async function mintChallenge(deps: Pick<Deps, 'store' | 'ids'>, request: ApprovalRequest, spec: PromptSpec, by: PromptOwner, ttlSeconds: number): Promise<string> {
  const { challenge, record } = await newChallenge(deps, request, spec, by);
  await storeChallenge(deps.store, request.tenant, challenge, record, ttlSeconds);
  return challenge;
}

/**
 * The live set of one device for one request as stored (see {@link livePrompts}), or null; read
 * beside the request so a repeated view costs no round trip for it. A malformed id reads nothing.
 */
export function readLivePrompts(store: RecordStore, tenant: string, authReqId: string, deviceId: string): Promise<Fields | null> {
  return isRequestId(authReqId) ? store.hashGet(keys.livePrompts(tenant, authReqId, deviceId)) : Promise.resolve(null);
}

/** The answer of {@link livePrompts}. */
export interface LivePrompts {
  /** Prompt name → its challenge (base64url), for every prompt asked for. */
  challenges: Map<string, string>;
  /** True when this call made the device's set: the first view of the request on this device. */
  firstView: boolean;
}

/** Lost races before a view gives up on sharing the set and answers challenges of its own. */
const MAX_ATTEMPTS = 4;

/** True when a stored record is still the prompt `spec` for `by` (roles and parties can change between views). */
function fits(record: ChallengeRecord, request: ApprovalRequest, spec: PromptSpec, by: PromptOwner): boolean {
  return record.auth_req_id === request.auth_req_id && record.decision === spec.decision && record.sub === by.sub && (record.party ?? 'customer') === by.party && record.selected_code === spec.selected_code;
}

function parseRecord(text: string | null): ChallengeRecord | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as ChallengeRecord;
  } catch {
    return null;
  }
}

/**
 * The decision challenges one device is shown for one request: the ones it was shown before while
 * they live, new ones only where none is.
 *
 * The device's set is a hash (`keys.livePrompts`, until the request's deadline) of prompt name →
 * challenge. A prompt is live while its challenge record (`keys.decisionChallenge`) is still there:
 * the first verification attempt takes that record (GETDEL, pass or fail), so a used or expired
 * challenge is never shown again, and each challenge is still made once, with its own fresh nonce,
 * and verifies once (docs/design.md guarantee 4 is untouched: only how often a view mints changes).
 * Without this, every view stored a new challenge per prompt until the deadline: a device could
 * fill the store by reloading one request.
 *
 * New challenges are stored first and then put in the set, by `hashCreate` for a new set or by a
 * compare-and-set guarded on every prompt's previous value: of two views that race, one writes the
 * set and the other deletes what it minted and shows the winner's, so concurrent views end with
 * one live set. (Should a view stop between storing and deleting, its challenges stay until the
 * deadline: live but shown to nobody, and each still single-use.)
 *
 * The set is per device, not per session or per user: what a device is shown does not depend on how
 * many sessions it opened, and two phones of one person do not take each other's prompts away.
 * It is also what makes `viewed` one event per device and request: only the call that creates the
 * set reports `firstView`.
 *
 * @param specs - the prompts the viewer needs now; may be empty (a viewer with nothing to decide: the set only marks the view).
 * @param current - the set as already read ({@link readLivePrompts}); read here when undefined.
 * @see docs/design.md guarantee 4; docs/security.md "Refusals and views cannot grow storage without bound"
 */
export async function livePrompts(deps: Pick<Deps, 'store' | 'clock' | 'ids'>, request: ApprovalRequest, deviceId: string, by: PromptOwner, specs: PromptSpec[], current?: Fields | null): Promise<LivePrompts> {
  const { store } = deps;
  const key = keys.livePrompts(request.tenant, request.auth_req_id, deviceId);
  let set = current;
  for (let attempt = 0; ; attempt++) {
    if (set === undefined) set = await store.hashGet(key);
    const named = specs.map((spec) => set?.[spec.name] ?? null);
    const records = await Promise.all(named.map((challenge) => (challenge ? store.get(keys.decisionChallenge(request.tenant, challenge)) : null)));
    const challenges = new Map<string, string>();
    const missing: PromptSpec[] = [];
    specs.forEach((spec, i) => {
      const record = parseRecord(records[i]!);
      if (record && fits(record, request, spec, by)) challenges.set(spec.name, named[i]!);
      else missing.push(spec);
    });
    if (set && missing.length === 0) return { challenges, firstView: false };

    const now = deps.clock.now();
    const ttl = challengeTtl(request, now);
    const minted = await Promise.all(missing.map((spec) => newChallenge(deps, request, spec, by)));
    const written: Fields = Object.fromEntries(missing.map((spec, i) => [spec.name, minted[i]!.challenge]));
    for (const [i, spec] of missing.entries()) challenges.set(spec.name, minted[i]!.challenge);
    // Stored before the set names them, so a view never finds a challenge the set names but the store lacks yet.
    await Promise.all(minted.map(({ challenge, record }) => storeChallenge(store, request.tenant, challenge, record, ttl)));
    if (attempt + 1 >= MAX_ATTEMPTS) return { challenges, firstView: false };
    let won: boolean;
    if (!set) {
      won = await store.hashCreate(key, { viewed_at: String(now), ...written }, ttl);
    } else {
      const guards: Guard[] = specs.map((spec) => (set![spec.name] === undefined ? { field: spec.name, op: 'absent' } : { field: spec.name, op: 'eq', value: set![spec.name]! }));
      won = (await store.compareAndSet(key, guards, written, { ttlSeconds: ttl })).ok;
    }
    if (won) return { challenges, firstView: !set };
    // Another view of this device wrote the set first: what this one minted was shown to nobody.
    await Promise.all(minted.map(({ challenge }) => store.delete(keys.decisionChallenge(request.tenant, challenge))));
    set = undefined;
  }
}
