import type { ApprovalParty, AuthorizationDetails, Outcome, RequestState } from '@countersign/shared';
import type { PartyApproval } from '../policy/index.ts';
import type { Fields } from '../store/index.ts';
import { chunked, FIELD_CHUNK_BYTES, joined, NOTIFICATION_TOKEN_FIELD, SPLIT_FIELDS } from './request-chunks.ts';
import type { ApprovalRequest, EscalationStep } from './request-record.ts';

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

/** The `client_notification_token` stored with a request, or null (poll clients send none). */
export function notificationTokenOf(fields: Fields): string | null {
  return joined(fields, NOTIFICATION_TOKEN_FIELD) || null;
}

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
