/** The documented record change, its probe and a one-change helper, shared by the record_change tests (record-change-*.test.ts). */
import { actionProbe } from './action-probe.test-support.ts';

/** The record change of docs/ciba.md ("The actions a request may carry"), as an agent sends it. */
export const EXAMPLE = {
  type: 'record_change',
  transaction_id: 'chg_12',
  record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' },
  changes: [
    { field: 'payout_eur_minor', from: 4000, to: 4250 },
    { field: 'status', from: 'active', to: 'paused' },
  ],
  purpose: 'Raise payout',
  precondition: { record: 'campaign:cmp_4', version: '17' },
};

export const { parse, problems, shown } = actionProbe(EXAMPLE);

/** One change of `field` from `from` to `to`. */
export const change = (from: unknown, to: unknown, field = 'status') => ({ changes: [{ field, from, to }] });
