import type { ApprovalParty, AuthorizationDetails, Outcome, RequestState } from '@countersign/shared';
import type { PartyApproval } from '../policy/index.ts';
import type { Fields } from '../store/index.ts';

/**
 * One approval request (a CIBA backchannel authentication request) as the server holds it.
 * Times are epoch milliseconds; `interval` is seconds. The action (`authorization_details`) and its
 * hash are written once at creation and never change (docs/design.md guarantee 2).
 */
export interface ApprovalRequest {
  auth_req_id: string;
  tenant: string;
  client_id: string;
  /** The client's name when the request was made, shown to the person. */
  client_name: string;
  sub: string;
  scope: string;
  binding_message: string | null;
  authorization_details: AuthorizationDetails;
  details_hash: string;
  state: RequestState;
  created_at: number;
  /** Deadline for a decision (`expires_in` after creation). */
  expires_at: number;
  interval: number;
  /**
   * How the client is told the result (CIBA Core §5): `poll`, or `ping` / `push` to its
   * notification endpoint. Taken from the client's registration when the request was made.
   */
  token_delivery_mode: 'poll' | 'ping' | 'push';
  /** When the ping or push notification about this request was accepted by the client (epoch ms). */
  notified_at?: number;
  decided_at?: number;
  /** The device whose passkey decided. */
  decided_by?: string;
  /** Deadline for redemption once approved (approval token lifetime). */
  approval_expires_at?: number;
  token_jti?: string;
  redemption_id?: string;
  redeemed_at?: number;
  outcome: Outcome | null;
  // Who must say yes (docs/guarantees.md "Reviewers"), decided at request time from the policy and
  // never changed. `tier` and `parties` are not stored when they are the default (tier `standard`,
  // the customer alone); records stored before policy tiers (or built by hand in a test) read as
  // one customer approval, no number matching, the configured token lifetime.
  /** The policy tier's name. */
  tier?: string;
  /**
   * The revision of its tenant's policy the request was rated under (0, not stored: the server's
   * default); what reads the policy after creation reads this revision (`Deps.policies.forRequest`).
   */
  policy_revision?: number;
  /** Every party that must approve: `customer`, `role:<role>`. */
  parties?: ApprovalParty[];
  /** The parties that approved so far, each with its own passkey (state stays `pending` until all have). */
  approvals?: PartyApproval[];
  /** Approval token lifetime from the final approval, seconds (the tier's). */
  token_lifetime?: number;
  /** Number matching: the code the agent shows the person. Never shown on a device, nor to the operator. */
  binding_code?: string;
  /** Number matching: the three codes the device offers, in their random order. */
  code_candidates?: string[];
  /** When the person said "this wasn't me" (epoch ms). */
  fraud_reported_at?: number;
  // Escalation (docs/escalation.md): the tier's chain, copied at creation and never
  // changed; `parties` as read back is whoever holds the request now.
  /** The chain: at `at` (epoch ms) the request is handed to `party`. Absent: the tier has none. */
  escalation?: EscalationStep[];
  /** How many steps of the chain have happened: 0 until the first window passes. */
  escalation_step?: number;
  /** Read back, never written: the parties that held the request before its current holder, oldest first. */
  held_before?: ApprovalParty[];
  /** Why a request expired, when it was not simply its deadline: every window of its chain passed. */
  expiry_reason?: 'escalation_exhausted' | 'mandate_revoked';
  /** A mandate's revocation (docs/mandates.md): when (epoch ms), and by whom (a device id, or `admin`). */
  revoked_at?: number;
  revoked_by?: string;
}

/** One step of a request's escalation chain: when (epoch ms) it is handed on, and to whom (`role:<role>`). */
export interface EscalationStep {
  at: number;
  party: ApprovalParty;
}

/** The hash field that holds one party's approval (JSON of {@link PartyApproval}). */
export function approvalField(party: ApprovalParty): string {
  return `approval:${party}`;
}

/**
 * The hash field that keeps the evidence of one party's passkey approval of a mandate (JSON of
 * `ApprovalEvidence`, devices/approval-evidence.ts), written with its `approval:<party>`. Read only
 * by the mandate's evidence export, so it is not a member of {@link ApprovalRequest}.
 */
export function evidenceField(party: ApprovalParty): string {
  return `evidence:${party}`;
}

const optionalNumber = (value: string | undefined) => (value === undefined ? undefined : Number(value));

/**
 * The hash field that keeps the client's `client_notification_token` (CIBA Core §7.1) next to the
 * request. It is a bearer secret, so it is deliberately not a member of {@link ApprovalRequest}:
 * whatever serialises a request (the admin view, a log line, the audit) cannot carry it. Only the
 * notifier reads it, with {@link notificationTokenOf}.
 */
const NOTIFICATION_TOKEN_FIELD = 'notification_token';

/** The `client_notification_token` stored with a request, or null (poll clients send none). */
export function notificationTokenOf(fields: Fields): string | null {
  return joined(fields, NOTIFICATION_TOKEN_FIELD) || null;
}

/**
 * The longest value, in UTF-8 bytes, that keeps a request's hash in Redis's compact encoding: a hash
 * with any value longer than `hash-max-listpack-value` (64 by default) becomes a hashtable, about
 * twice the memory (issue: memory per pending request).
 */
export const FIELD_CHUNK_BYTES = 64;

/**
 * The fields written once, at creation, that may be longer than {@link FIELD_CHUNK_BYTES}: such a
 * value is stored in chunks under a short name (`ad#0`, `ad#1`, …, see `CHUNK_NAME`; `<name>#0` before)
 * and no field `<name>`, so a reader that looks
 * at the raw field finds nothing rather than a truncated value. Only write-once fields: a later
 * compare-and-swap of a field that had chunks could leave stale ones behind.
 */
const SPLIT_FIELDS = ['authorization_details', 'client_name', 'binding_message', 'parties', 'code_candidates', 'escalation', NOTIFICATION_TOKEN_FIELD] as const;

/**
 * The short name a split value's chunks are written under (`ad#0`, `ad#1`, …): a chunk's name is
 * stored in every request, and `authorization_details#0` alone is 23 bytes. Chunks written under the
 * long name (`authorization_details#0`, before the short names) are read as well.
 */
const CHUNK_NAME: Record<(typeof SPLIT_FIELDS)[number], string> = {
  authorization_details: 'ad',
  client_name: 'cn',
  binding_message: 'bm',
  parties: 'pa',
  code_candidates: 'cc',
  escalation: 'es',
  [NOTIFICATION_TOKEN_FIELD]: 'nt',
};

/**
 * Values a new request does not store because they are what {@link fromFields} reads when the field
 * is absent (as it is on records stored before the field existed): the memory of every request
 * (issue: memory per pending request).
 */
const DEFAULTS: Readonly<Record<string, string>> = {
  scope: 'openid',
  binding_message: '',
  token_delivery_mode: 'poll',
  tier: 'standard',
  parties: '["customer"]',
};

/** UTF-8 bytes of one code point (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Bytes(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * `value` in pieces of at most `maxBytes` UTF-8 bytes each, cut between code points (never inside a
 * character), that join back to `value`.
 */
export function splitUtf8(value: string, maxBytes = FIELD_CHUNK_BYTES): string[] {
  const chunks: string[] = [];
  let [start, bytes, at] = [0, 0, 0];
  for (const char of value) {
    const size = utf8Bytes(char.codePointAt(0)!);
    if (bytes + size > maxBytes) {
      chunks.push(value.slice(start, at));
      [start, bytes] = [at, 0];
    }
    bytes += size;
    at += char.length;
  }
  chunks.push(value.slice(start));
  return chunks;
}

/** The fields of one write-once value: itself when short, else its chunks under its short name (see {@link SPLIT_FIELDS}). */
function chunked(name: (typeof SPLIT_FIELDS)[number], value: string): Fields {
  if (Buffer.byteLength(value, 'utf8') <= FIELD_CHUNK_BYTES) return { [name]: value };
  return Object.fromEntries(splitUtf8(value).map((chunk, i) => [`${CHUNK_NAME[name]}#${i}`, chunk]));
}

/** A write-once value read back: the field itself, or its chunks joined in order (short name, else long), or undefined. */
function joined(fields: Fields, name: (typeof SPLIT_FIELDS)[number]): string | undefined {
  if (fields[name] !== undefined) return fields[name];
  const prefix = [CHUNK_NAME[name], name].find((candidate) => fields[`${candidate}#0`] !== undefined);
  if (prefix === undefined) return undefined;
  let value = '';
  for (let i = 0; fields[`${prefix}#${i}`] !== undefined; i++) value += fields[`${prefix}#${i}`];
  return value;
}

/**
 * The hash fields of a new request. A write-once value longer than {@link FIELD_CHUNK_BYTES} UTF-8
 * bytes (the action, the client's name, `parties` …) is stored in chunks, so the hash stays a
 * listpack; {@link fromFields} joins them. A field holding its default (`scope` `openid`, no
 * `binding_message`, `poll`, tier `standard`, the customer alone) is left out; {@link fromFields}
 * reads it back.
 * @param secrets - the `client_notification_token` of a ping or push client, kept beside the request (never in it).
 */
export function toFields(request: ApprovalRequest, secrets: { client_notification_token?: string | null } = {}): Fields {
  const fields = plainFields(request, secrets);
  for (const [name, value] of Object.entries(DEFAULTS)) if (fields[name] === value) delete fields[name];
  for (const name of SPLIT_FIELDS) {
    const value = fields[name];
    if (value === undefined || Buffer.byteLength(value, 'utf8') <= FIELD_CHUNK_BYTES) continue;
    delete fields[name];
    Object.assign(fields, chunked(name, value));
  }
  return fields;
}

/** The fields of a new request, each value whole. */
function plainFields(request: ApprovalRequest, secrets: { client_notification_token?: string | null }): Fields {
  return {
    ...(secrets.client_notification_token ? { [NOTIFICATION_TOKEN_FIELD]: secrets.client_notification_token } : {}),
    auth_req_id: request.auth_req_id,
    tenant: request.tenant,
    client_id: request.client_id,
    client_name: request.client_name,
    sub: request.sub,
    scope: request.scope,
    binding_message: request.binding_message ?? '',
    authorization_details: JSON.stringify(request.authorization_details),
    details_hash: request.details_hash,
    state: request.state,
    created_at: String(request.created_at),
    expires_at: String(request.expires_at),
    interval: String(request.interval),
    token_delivery_mode: request.token_delivery_mode,
    ...(request.tier === undefined ? {} : { tier: request.tier }),
    ...(request.policy_revision ? { policy_revision: String(request.policy_revision) } : {}),
    ...(request.parties === undefined ? {} : { parties: JSON.stringify(request.parties) }),
    ...(request.token_lifetime === undefined ? {} : { token_lifetime: String(request.token_lifetime) }),
    ...(request.binding_code === undefined ? {} : { binding_code: request.binding_code }),
    ...(request.code_candidates === undefined ? {} : { code_candidates: JSON.stringify(request.code_candidates) }),
    ...(request.escalation?.length ? { escalation: JSON.stringify(request.escalation) } : {}),
  };
}

/** The approvals recorded in a request's fields, in the order of its parties. */
function approvalsOf(fields: Fields, parties: ApprovalParty[]): PartyApproval[] {
  return parties.flatMap((party) => {
    const json = fields[approvalField(party)];
    return json ? [{ ...(JSON.parse(json) as Omit<PartyApproval, 'party'>), party }] : [];
  });
}

/**
 * The request a hash holds, or null when there is none: no hash, or one without `auth_req_id`
 * (what a compare-and-swap or a field write leaves on a key whose record had gone).
 */
export function requestOf(fields: Fields | null | undefined): ApprovalRequest | null {
  return fields?.auth_req_id ? fromFields(fields) : null;
}

/**
 * Reads a request back from its hash fields, joining the chunks of long write-once values (see
 * {@link toFields}); records stored whole, before chunking, read the same.
 */
export function fromFields(stored: Fields): ApprovalRequest {
  const fields: Fields = { ...stored };
  for (const name of SPLIT_FIELDS) {
    const value = joined(stored, name);
    if (value !== undefined) fields[name] = value;
  }
  const outcomeStatus = fields.outcome_status;
  let outcome: Outcome | null = null;
  if (outcomeStatus === 'unknown') outcome = { status: 'unknown' };
  else if (outcomeStatus === 'succeeded' || outcomeStatus === 'failed') {
    outcome = {
      status: outcomeStatus,
      ...(fields.outcome_reference ? { reference: fields.outcome_reference } : {}),
      ...(fields.outcome_reason ? { reason: fields.outcome_reason } : {}),
    };
  }
  const firstParties = fields.parties ? (JSON.parse(fields.parties) as ApprovalParty[]) : (['customer'] as ApprovalParty[]);
  const escalation = fields.escalation ? (JSON.parse(fields.escalation) as EscalationStep[]) : undefined;
  const step = escalation ? Math.min(Number(fields.escalation_step ?? 0), escalation.length) : 0;
  // Escalated: the request is held by the step's role alone (a chain is only allowed on a tier of
  // one approver), and the earlier holders can no longer approve it.
  const parties = step > 0 ? [escalation![step - 1]!.party] : firstParties;
  return {
    auth_req_id: fields.auth_req_id!,
    tenant: fields.tenant!,
    client_id: fields.client_id!,
    client_name: fields.client_name!,
    sub: fields.sub!,
    scope: fields.scope ?? DEFAULTS.scope!,
    binding_message: fields.binding_message || null,
    authorization_details: JSON.parse(fields.authorization_details!) as AuthorizationDetails,
    details_hash: fields.details_hash!,
    state: fields.state as RequestState,
    created_at: Number(fields.created_at),
    expires_at: Number(fields.expires_at),
    interval: Number(fields.interval),
    // Requests stored before delivery modes existed were all polled.
    token_delivery_mode: fields.token_delivery_mode === 'ping' || fields.token_delivery_mode === 'push' ? fields.token_delivery_mode : 'poll',
    notified_at: optionalNumber(fields.notified_at),
    decided_at: optionalNumber(fields.decided_at),
    decided_by: fields.decided_by,
    approval_expires_at: optionalNumber(fields.approval_expires_at),
    token_jti: fields.token_jti,
    redemption_id: fields.redemption_id,
    redeemed_at: optionalNumber(fields.redeemed_at),
    outcome,
    tier: fields.tier ?? 'standard',
    ...(fields.policy_revision === undefined ? {} : { policy_revision: Number(fields.policy_revision) }),
    parties,
    approvals: approvalsOf(fields, parties),
    token_lifetime: optionalNumber(fields.token_lifetime),
    binding_code: fields.binding_code,
    code_candidates: fields.code_candidates ? (JSON.parse(fields.code_candidates) as string[]) : undefined,
    fraud_reported_at: optionalNumber(fields.fraud_reported_at),
    ...(escalation ? { escalation, escalation_step: step, held_before: step === 0 ? [] : [...firstParties, ...escalation.slice(0, step - 1).map((next) => next.party)] } : {}),
    ...(fields.expiry_reason === 'escalation_exhausted' || fields.expiry_reason === 'mandate_revoked' ? { expiry_reason: fields.expiry_reason } : {}),
    ...(fields.revoked_at === undefined ? {} : { revoked_at: Number(fields.revoked_at), revoked_by: fields.revoked_by ?? '' }),
  };
}

/**
 * The state a request is in at `nowMs`: a pending request past `expires_at`, or an approved one
 * past `approval_expires_at`, is expired even before the store has been told.
 */
export function effectiveState(request: ApprovalRequest, nowMs: number): RequestState {
  if (request.state === 'pending' && nowMs >= request.expires_at) return 'expired';
  if (request.state === 'approved' && nowMs >= (request.approval_expires_at ?? 0)) return 'expired';
  return request.state;
}

/** The deadline that matters in the request's current state (epoch ms). */
export function currentDeadline(request: ApprovalRequest): number {
  return request.state === 'approved' || request.state === 'redeemed' ? (request.approval_expires_at ?? request.expires_at) : request.expires_at;
}
