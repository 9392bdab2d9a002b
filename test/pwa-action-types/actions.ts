import type { Locator } from 'playwright-core';

// The actions test/pwa-action-types/ shows on the phone, one of each type and a batch, as an agent asks for them.

/** 1,200 customers in the CRM, 8 of them named; they cannot be brought back. */
export const DELETION = {
  type: 'deletion',
  transaction_id: 'del_88',
  resource: { kind: 'customer', system: 'crm' },
  ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_6', 'cus_7', 'cus_8'],
  count: 1200,
  reversible: false,
  purpose: 'Erasure request 88',
} as const;

/**
 * A body of several lines, an empty one and indented ones among them: what is sent is what is
 * shown. Written as the server stores it (`displayLines` turns a run of spaces into one).
 */
export const BODY = 'Dear customer,\n\nFrom 1 January our prices change:\n - Basic: EUR 9.00 a month\n - Pro: EUR 19.00 a month\n\nThank you,\nACME';
export const MESSAGE = {
  type: 'message',
  transaction_id: 'msg_5',
  channel: 'email',
  recipients: { count: 12000, list: 'newsletter-eu', sample: ['ana@example.com', 'bo@example.com'] },
  subject: 'Price change',
  body: BODY,
  purpose: 'Quarterly notice',
} as const;

export const ACCESS_CHANGE = {
  type: 'access_change',
  transaction_id: 'acc_3',
  principal: { id: 'u_9', name: 'Bo Li' },
  resource: { id: 'proj_1', name: 'Payments prod' },
  from_role: 'viewer',
  to_role: 'admin',
  purpose: 'On-call cover',
} as const;

/** A number, a text, and a text that becomes a number: `"2"` and `2` must read apart. */
export const RECORD_CHANGE = {
  type: 'record_change',
  transaction_id: 'chg_12',
  record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' },
  changes: [
    { field: 'payout_eur_minor', from: 4000, to: 4250 },
    { field: 'status', from: 'active', to: 'paused' },
    { field: 'priority', from: '2', to: 2 },
  ],
  purpose: 'Raise payout',
  precondition: { record: 'campaign:cmp_4', version: '17' },
} as const;

/** Three payments in two currencies: EUR 120.00 + EUR 80.50 = EUR 200.50, and JPY 5,000 (standard tier). */
export const BATCH = [
  { type: 'payment', transaction_id: 'txn_b1', amount_minor: 12000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' },
  { type: 'payment', transaction_id: 'txn_b2', amount_minor: 8050, currency: 'EUR', payee: { id: 'acct_78', name: 'Globex GmbH' }, purpose: 'Refund for order 1043' },
  { type: 'payment', transaction_id: 'txn_b3', amount_minor: 5000, currency: 'JPY', payee: { id: 'acct_79', name: 'Tanaka KK' }, purpose: 'Refund for order 1044' },
] as const;

/** The computed font size of an element, in CSS px. */
export const fontSize = (locator: Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
