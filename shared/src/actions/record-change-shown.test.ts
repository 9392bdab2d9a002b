/** The record_change type as a person is shown it: the record, each field before and after, quoted or bare, and long strings folded. */
import { describe, expect, it } from 'vitest';
import { shown, change } from './record-change.test-support.ts';

const text = (value: string) => ({ kind: 'text', preview: value, full: value, folded: false });

describe('the record_change type', () => {
  it('shows the documented change: the record, each field before and after, and the version it depends on', () => {
    expect(shown({})).toStrictEqual({
      type: 'record_change',
      verb: 'Change',
      title: 'Change campaign Auto EU (cmp_4): 2 fields',
      summary: 'Change campaign Auto EU (cmp_4)',
      changes: [
        { field: 'payout_eur_minor', from: { kind: 'number', text: '4000' }, to: { kind: 'number', text: '4250' } },
        { field: 'status', from: text('active'), to: text('paused') },
      ],
      fields: [
        { label: 'Record', value: 'campaign Auto EU (cmp_4)' },
        { label: 'payout_eur_minor', value: '4000 → 4250' },
        { label: 'status', value: '"active" → "paused"' },
        { label: 'Purpose', value: 'Raise payout' },
        { label: 'Transaction', value: 'chg_12' },
        { label: 'Only if unchanged', value: 'campaign:cmp_4 at version 17' },
      ],
    });
  });

  it('shows strings quoted and numbers bare, so "17" → 17 reads as a change; null and booleans as words', () => {
    const values = {
      record: { kind: 'invoice', id: 'INV-7' },
      changes: [
        { field: 'quantity', from: '17', to: 17 },
        { field: 'paid', from: null, to: true },
        { field: 'archived', from: false, to: null },
        { field: 'rate', from: 0.15, to: 1e21 },
      ],
      precondition: undefined,
    };
    expect(shown(values)).toStrictEqual({
      type: 'record_change',
      verb: 'Change',
      title: 'Change invoice INV-7: 4 fields',
      summary: 'Change invoice INV-7',
      changes: [
        { field: 'quantity', from: text('17'), to: { kind: 'number', text: '17' } },
        { field: 'paid', from: { kind: 'null', text: 'null' }, to: { kind: 'boolean', text: 'true' } },
        { field: 'archived', from: { kind: 'boolean', text: 'false' }, to: { kind: 'null', text: 'null' } },
        { field: 'rate', from: { kind: 'number', text: '0.15' }, to: { kind: 'number', text: '1e+21' } },
      ],
      fields: [
        { label: 'Record', value: 'invoice INV-7' },
        { label: 'quantity', value: '"17" → 17' },
        { label: 'paid', value: 'null → true' },
        { label: 'archived', value: 'false → null' },
        { label: 'rate', value: '0.15 → 1e+21' },
        { label: 'Purpose', value: 'Raise payout' },
        { label: 'Transaction', value: 'chg_12' },
      ],
    });
  });

  it('folds a long string to its first 160 characters in the table, keeping all of it in full and on the one-line field', () => {
    const long = `${'Lorem ipsum '.repeat(20)}end`;
    const display = shown({ record: { kind: 'campaign', id: 'cmp_4' }, ...change('short', long, 'description'), precondition: undefined });
    expect(display).toStrictEqual({
      type: 'record_change',
      verb: 'Change',
      title: 'Change campaign cmp_4: 1 field',
      summary: 'Change campaign cmp_4',
      changes: [{ field: 'description', from: text('short'), to: { kind: 'text', preview: `${long.slice(0, 160).trimEnd()}…`, full: long, folded: true } }],
      fields: [
        { label: 'Record', value: 'campaign cmp_4' },
        { label: 'description', value: `"short" → ${JSON.stringify(long)}` },
        { label: 'Purpose', value: 'Raise payout' },
        { label: 'Transaction', value: 'chg_12' },
      ],
    });
    expect(long.slice(0, 160).trimEnd()).toBe(`${'Lorem ipsum '.repeat(13).trimEnd()} Lore`);
  });
});
