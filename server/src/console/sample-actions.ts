import { displayAction, type ActionDisplay, type AuthorizationDetail } from '@countersign/shared';
import { z } from 'zod';

/** The action types the console can send as a ready-made sample (the example of each in docs/ciba.md "The actions a request may carry"). */
export const SAMPLE_TYPES = ['payment', 'deletion', 'message', 'access_change', 'record_change'] as const;
/** One of {@link SAMPLE_TYPES}. */
export type SampleType = (typeof SAMPLE_TYPES)[number];
/** A sample type, as the test request body names it. */
export const sampleType = z.enum(SAMPLE_TYPES);

/** How the console's action picker names each sample. */
export const SAMPLE_LABELS: Record<SampleType, string> = {
  payment: 'Payment',
  deletion: 'Deletion',
  message: 'Message to many',
  access_change: 'Access change',
  record_change: 'Record change',
};

/** The `transaction_id` prefix of each type's samples, as an agent would name its own. */
const PREFIX: Record<SampleType, string> = { payment: 'txn', deletion: 'del', message: 'msg', access_change: 'acc', record_change: 'chg' };

/**
 * The sample action of `type`: the example of that type in docs/ciba.md, built by the server (so every
 * operator tests with the same action, valid by construction), under `transactionId`. Each says it
 * is a console test in its purpose: the person can tell it from a real one.
 */
export function sampleAction(type: SampleType, transactionId: string): AuthorizationDetail {
  const transaction_id = transactionId;
  switch (type) {
    case 'payment':
      return { type, transaction_id, amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Console test payment' };
    case 'deletion':
      return {
        type,
        transaction_id,
        resource: { kind: 'customer', system: 'crm' },
        ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_6', 'cus_7'],
        count: 1200,
        reversible: false,
        purpose: 'Console test: erasure request 88',
      };
    case 'message':
      return {
        type,
        transaction_id,
        channel: 'email',
        recipients: { count: 12000, list: 'newsletter-eu', sample: ['ana@example.com', 'li@example.com'] },
        subject: 'Price change',
        body: 'Hello,\n\nOur prices change on 1 January.\nThe new prices are on our website.\n\nThe ACME team',
        purpose: 'Console test: quarterly notice',
      };
    case 'access_change':
      return {
        type,
        transaction_id,
        principal: { id: 'u_9', name: 'Bo Li' },
        resource: { id: 'proj_1', name: 'Payments prod' },
        from_role: 'viewer',
        to_role: 'editor',
        purpose: 'Console test: on-call cover',
      };
    case 'record_change':
      return {
        type,
        transaction_id,
        record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' },
        changes: [
          { field: 'daily_budget_eur_minor', from: 4000, to: 4250 },
          { field: 'status', from: 'active', to: 'paused' },
        ],
        purpose: 'Console test: raise daily budget',
        precondition: { record: 'campaign:cmp_4', version: '17' },
      };
  }
}

/** A fresh `transaction_id` for a sample of `type`: `del_console_<random>`, so each send is a new request. */
export function sampleTransactionId(type: SampleType, ids: (bytes?: number) => string): string {
  return `${PREFIX[type]}_console_${ids(12)}`;
}

/** One sample as the console previews it before sending. */
export interface SamplePreview {
  type: SampleType;
  label: string;
  /** What the person will see, as the server computes it; without the `Transaction` line, new for each send. */
  display: Pick<ActionDisplay, 'title' | 'fields'> & { warnings: string[] };
}

/** Every sample's preview, in {@link SAMPLE_TYPES} order. */
export function samplePreviews(): SamplePreview[] {
  return SAMPLE_TYPES.map((type) => {
    const placeholder = `${PREFIX[type]}_console_sample`;
    const display = displayAction(sampleAction(type, placeholder));
    return {
      type,
      label: SAMPLE_LABELS[type],
      display: { title: display.title, warnings: display.warnings ?? [], fields: display.fields.filter((field) => field.value !== placeholder) },
    };
  });
}
