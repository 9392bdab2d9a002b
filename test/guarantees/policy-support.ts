import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthorizationDetails } from '@countersign/shared';
import type { EnrolledUser, Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';

/** The shipped default policy as JSON, to copy and change in a test. */
export function shippedPolicy(): any {
  return JSON.parse(readFileSync(new URL('../../server/src/policy/default-policy.json', import.meta.url), 'utf8'));
}

/** Writes a policy document to a fresh temporary file and answers its path, for `POLICY_FILE`. */
export function policyFile(document: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'countersign-policy-')), 'policy.json');
  writeFileSync(path, JSON.stringify(document));
  return path;
}

/**
 * The shipped policy with generous limits (so only what a test sets binds), changed by `change`.
 * A client's share of a user's pending places is the whole of them unless `change` sets it.
 */
export function testPolicy(change: (policy: any) => void = () => {}): string {
  const policy = shippedPolicy();
  policy.limits.max_pending_per_user = 100;
  delete policy.limits.max_pending_per_client_user;
  policy.limits.pushes_per_user = { window_seconds: 600, max_count: 100 };
  policy.limits.velocity.per_user = { window_seconds: 3600, max_count: 1000, max_amount_minor: {} };
  policy.limits.velocity.per_client = { window_seconds: 3600, max_count: 1000, max_amount_minor: {} };
  change(policy);
  policy.limits.max_pending_per_client_user ??= policy.limits.max_pending_per_user;
  return policyFile(policy);
}

/**
 * Makes `tier` a policy document's only tier: every floor names it, and every type is rated by it
 * alone (no amount, tool or blast-radius rule names another tier).
 */
export function onlyTier(policy: any, tier: { name: string; approvers: unknown[]; number_matching: boolean }): void {
  policy.tiers = [tier];
  policy.floors = { reversibility: { reversible: tier.name, costly: tier.name, irreversible: tier.name }, blast_radius: { one: tier.name, many: tier.name, all: tier.name } };
  for (const type of Object.values(policy.types) as Record<string, unknown>[]) {
    for (const rule of ['tool_tiers', 'record_tiers', 'recipient_tiers', 'role_tiers', 'revoke_tier', 'field_tiers', 'changed_fields_tiers']) delete type[rule];
    type.amount_tiers = {};
    type.unlisted_currency_tier = tier.name;
  }
}

/** A recorded audit event, as the code handed it to the audit log. */
export interface SeenEvent {
  type: string;
  reason?: string;
  auth_req_id?: string;
  client_id?: string;
  sub?: string;
  channel: string;
  detail?: Record<string, unknown>;
}

/**
 * Every audit event the server records from now on, refusals without a request id included
 * (those go to the tenant's trail only), however the audit log stores them.
 */
export function watchAudit(harness: Harness): SeenEvent[] {
  const seen: SeenEvent[] = [];
  const audit = harness.deps.audit;
  const record = audit.record.bind(audit);
  audit.record = async (event) => {
    seen.push(event as SeenEvent);
    return record(event);
  };
  return seen;
}

/** `POST /bc-authorize` with client_secret_basic, answered raw (status and JSON body). */
export async function bcAuthorize(harness: Harness, client: { client_id: string; client_secret: string }, params: { login_hint: string; details?: AuthorizationDetails; requested_expiry?: number; binding_message?: string }) {
  const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64');
  const form = new URLSearchParams({ scope: 'openid', login_hint: params.login_hint, authorization_details: JSON.stringify(params.details ?? payment()) });
  if (params.requested_expiry !== undefined) form.set('requested_expiry', String(params.requested_expiry));
  if (params.binding_message !== undefined) form.set('binding_message', params.binding_message);
  return harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
}

/** `POST /token` for the CIBA grant, answered raw. */
export async function pollToken(harness: Harness, client: { client_id: string; client_secret: string }, authReqId: string) {
  const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64');
  const form = new URLSearchParams({ grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: authReqId });
  return harness.call('POST', '/token', { body: form.toString(), headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
}

/** A call on the device API as this user's phone (session cookie, same-origin `Origin`). */
export function device(harness: Harness, user: EnrolledUser, method: string, path: string, body?: unknown) {
  return harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: harness.issuer } });
}

/** Creates a user with roles, then enrolls a software passkey for them. */
export async function enrollWithRoles(harness: Harness, sub: string, roles: string[]): Promise<EnrolledUser> {
  const created = await harness.admin('POST', '/users', { sub, roles });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  return harness.enrollUser(sub);
}

/** A payment of `amount_minor` in `currency` with its own transaction id. */
export function pay(transactionId: string, amountMinor = 49_000, currency = 'EUR'): AuthorizationDetails {
  return payment({ transaction_id: transactionId, amount_minor: amountMinor, currency });
}

/**
 * Opens the request on the phone and answers one prompt with the passkey: `approve` (or, with a
 * `code`, the number-matching approve prompt of that code) or `deny`; posts it to `path`
 * (`decision` or `report`). Answers the device API's reply.
 */
export async function answer(harness: Harness, user: EnrolledUser, authReqId: string, choice: { decision: 'approve' | 'deny'; code?: string; path?: 'decision' | 'report' }) {
  const view = await device(harness, user, 'GET', `/requests/${authReqId}`);
  if (view.status !== 200 || !view.body.options) return view;
  const prompt = choice.code === undefined ? view.body.options[choice.decision] : view.body.options.approve_by_code?.[choice.code];
  if (!prompt) throw new Error(`no ${choice.decision} prompt${choice.code ? ` for ${choice.code}` : ''}: ${JSON.stringify(view.body.options)}`);
  const response = await user.authenticator.authenticate(prompt);
  if ((choice.path ?? 'decision') === 'report') return device(harness, user, 'POST', `/requests/${authReqId}/report`, { response });
  return device(harness, user, 'POST', `/requests/${authReqId}/decision`, { decision: choice.decision, response, ...(choice.code === undefined ? {} : { selected_code: choice.code }) });
}
