import type { AuthorizationDetails } from '@countersign/shared';

/**
 * The docs/ciba.md example of each `authorization_details` type beyond payment (deletion, message,
 * access_change, record_change), one action each, with overrides of its top-level members. The
 * deletion names six of 1,200 records, so the display's "and N more" shows; the message body has
 * blank lines.
 */

/** Delete 1,200 customer records in crm, six of them named; cannot be undone. */
export function deletion(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'deletion',
      transaction_id: 'del_88',
      resource: { kind: 'customer', system: 'crm' },
      ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_6'],
      count: 1200,
      reversible: false,
      purpose: 'Erasure request 88',
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}

/** The body of {@link message}: three paragraphs, as it will be sent. */
export const MESSAGE_BODY = 'Hello,\n\nOur prices change on 1 January.\nDetails: example.com/prices\n\nThe ACME team';

/** An email to the 12,000 recipients of `newsletter-eu`. */
export function message(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'message',
      transaction_id: 'msg_5',
      channel: 'email',
      recipients: { count: 12000, list: 'newsletter-eu', sample: ['ana@example.com'] },
      subject: 'Price change',
      body: MESSAGE_BODY,
      purpose: 'Quarterly notice',
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}

/** Bo Li from viewer to editor on Payments prod. */
export function accessChange(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'access_change',
      transaction_id: 'acc_3',
      principal: { id: 'u_9', name: 'Bo Li' },
      resource: { id: 'proj_1', name: 'Payments prod' },
      from_role: 'viewer',
      to_role: 'editor',
      purpose: 'On-call cover',
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}

/** Campaign Auto EU's daily budget 4000 → 4250 and status active → paused, only at version 17. */
export function recordChange(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'record_change',
      transaction_id: 'chg_12',
      record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' },
      changes: [
        { field: 'daily_budget_eur_minor', from: 4000, to: 4250 },
        { field: 'status', from: 'active', to: 'paused' },
      ],
      purpose: 'Raise daily budget',
      precondition: { record: 'campaign:cmp_4', version: '17' },
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}
