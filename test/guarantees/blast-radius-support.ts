import type { AuthorizationDetails } from '@countersign/shared';

/** One action of the examples in docs/ciba.md ("The actions a request may carry"), with overrides, as a one-action request. */
function one(base: Record<string, unknown>, overrides: Record<string, unknown>): AuthorizationDetails {
  return [{ ...base, ...overrides } as AuthorizationDetails[number]];
}

/** A deletion of `count` customer records in crm (irreversible unless told). */
export function deletion(count: number, overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return one({ type: 'deletion', transaction_id: 'del_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1'], count, reversible: false, purpose: 'Erasure request 88' }, overrides);
}

/** An email to `count` recipients of newsletter-eu. */
export function message(count: number, overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return one({ type: 'message', transaction_id: 'msg_5', channel: 'email', recipients: { count, list: 'newsletter-eu' }, subject: 'Price change', body: 'Prices change on 1 May.', purpose: 'Quarterly notice' }, overrides);
}

/** Bo Li's role on Payments prod going from `from` to `to` (null: none). */
export function accessChange(from: string | null, to: string | null, overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return one({ type: 'access_change', transaction_id: 'acc_3', principal: { id: 'u_9', name: 'Bo Li' }, resource: { id: 'proj_1', name: 'Payments prod' }, from_role: from, to_role: to, purpose: 'On-call cover' }, overrides);
}

/** A change of campaign cmp_4: each named field from 1 to 2. */
export function recordChange(fields: string[], overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return one({ type: 'record_change', transaction_id: 'chg_12', record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' }, changes: fields.map((field) => ({ field, from: 1, to: 2 })), purpose: 'Raise payout' }, overrides);
}
