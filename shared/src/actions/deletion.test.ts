import { describe, expect, it } from 'vitest';
import { actionProbe } from './action-probe.test-support.ts';

/** The deletion of docs/ciba.md ("The actions a request may carry"), as an agent sends it. */
const EXAMPLE = { type: 'deletion', transaction_id: 'del_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1', 'cus_2'], count: 2, reversible: false, purpose: 'Erasure request 88' };

const { parse, problems, shown } = actionProbe(EXAMPLE);

const ids = (n: number) => Array.from({ length: n }, (_, i) => `cus_${i + 1}`);

describe('the deletion type', () => {
  it('accepts the documented deletion as sent', () => {
    const result = parse({});
    expect(result.success).toBe(true);
    expect(result.data).toEqual([EXAMPLE]);
  });

  it('refuses unknown fields, in the action and in its resource', () => {
    expect(problems({ cascade: true })).toEqual(['0: Unrecognized key: "cascade"']);
    expect(problems({ resource: { kind: 'customer', system: 'crm', table: 'customers' } })).toEqual(['0.resource: Unrecognized key: "table"']);
    expect(problems({ precondition: { record: 'crm:cus_1', version: '3', etag: 'x' } })).toEqual(['0.precondition: Unrecognized key: "etag"']);
  });

  it('names at most 100 ids, and counts at least as many records as it names', () => {
    expect(parse({ ids: ids(100), count: 100 }).success).toBe(true);
    expect(problems({ ids: ids(101), count: 101 })).toEqual(['0.ids: Too big: expected array to have <=100 items']);
    expect(problems({ ids: [], count: 1 })).toEqual(['0.ids: Too small: expected array to have >=1 items']);
    expect(problems({ ids: ids(3), count: 2 })).toEqual(['0.count: must be at least the number of ids (3)']);
    expect(parse({ ids: ids(3), count: 1_000_000_000 }).success).toBe(true);
    expect(problems({ count: 1_000_000_001 })).toEqual(['0.count: Too big: expected number to be <=1000000000']);
    expect(problems({ count: 2.5 })).toEqual(['0.count: Invalid input: expected int, received number']);
  });

  it('refuses strings past their maximum', () => {
    expect(parse({ purpose: 'p'.repeat(5000) }).success).toBe(true);
    expect(problems({ purpose: 'p'.repeat(5001) })).toEqual(['0.purpose: must be at most 5000 characters']);
    expect(problems({ transaction_id: 't'.repeat(65) })).toEqual(['0.transaction_id: Too big: expected string to have <=64 characters']);
    expect(problems({ resource: { kind: 'k'.repeat(65), system: 'crm' } })).toEqual(['0.resource.kind: Too big: expected string to have <=64 characters']);
    expect(problems({ resource: { kind: 'customer', system: 's'.repeat(65) } })).toEqual(['0.resource.system: Too big: expected string to have <=64 characters']);
    expect(parse({ ids: ['i'.repeat(128)], count: 1 }).success).toBe(true);
    expect(problems({ ids: ['i'.repeat(129)], count: 1 })).toEqual(['0.ids.0: Too big: expected string to have <=128 characters']);
  });

  it('refuses a purpose holding what a person cannot see, naming it', () => {
    expect(problems({ purpose: 'Erasure \u202e88 request' })).toEqual(['0.purpose: must not hold a bidirectional control (U+202E)']);
    expect(problems({ purpose: 'Erasure\u200b request 88' })).toEqual(['0.purpose: must not hold an invisible or filler character (U+200B)']);
    expect(problems({ purpose: 'Erasure\u001b[8m request 88' })).toEqual(['0.purpose: must not hold a control character (U+001B)']);
    // Kind, system and ids are identifiers: no room for any of it.
    expect(problems({ resource: { kind: 'cust\u200bomer', system: 'crm' } })).toEqual(['0.resource.kind: may hold only letters, digits and ._:-']);
    expect(problems({ ids: ['cus_1', 'cus\u202e_2'] })).toEqual(['0.ids.1: may hold only letters, digits and ._:/-']);
  });

  it('refuses an id named twice', () => {
    expect(problems({ ids: ['cus_1', 'cus_2', 'cus_1'], count: 3 })).toEqual(['0.ids: each id may be named once']);
  });

  it('shows the documented deletion: how many of what where, the ids, and that it cannot be undone', () => {
    expect(shown({})).toStrictEqual({
      type: 'deletion',
      verb: 'Delete',
      title: 'Delete 2 customer records in crm',
      summary: 'Delete 2 customer records in crm',
      warnings: ['Cannot be undone'],
      records: { kind: 'customer', system: 'crm', count: 2, ids: ['cus_1', 'cus_2'], more: 0, reversible: false },
      fields: [
        { label: 'Records', value: 'customer records in crm' },
        { label: 'How many', value: '2' },
        { label: 'Ids', value: 'cus_1, cus_2' },
        { label: 'Undo', value: 'Cannot be undone' },
        { label: 'Purpose', value: 'Erasure request 88' },
        { label: 'Transaction', value: 'del_88' },
      ],
    });
  });

  it('shows the first 5 of 12 ids of 12,000 records and how many more, with no warning when it can be undone', () => {
    const display = shown({ ids: ids(12), count: 12_000, reversible: true, precondition: { record: 'crm:segment-7', version: 'W/"3f2a"' } });
    expect(display).toStrictEqual({
      type: 'deletion',
      verb: 'Delete',
      title: 'Delete 12,000 customer records in crm',
      summary: 'Delete 12,000 customer records in crm',
      records: { kind: 'customer', system: 'crm', count: 12_000, ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5'], more: 11_995, reversible: true },
      fields: [
        { label: 'Records', value: 'customer records in crm' },
        { label: 'How many', value: '12,000' },
        { label: 'Ids', value: 'cus_1, cus_2, cus_3, cus_4, cus_5 and 11,995 more' },
        { label: 'Undo', value: 'Can be restored' },
        { label: 'Purpose', value: 'Erasure request 88' },
        { label: 'Transaction', value: 'del_88' },
        { label: 'Only if unchanged', value: 'crm:segment-7 at version W/"3f2a"' },
      ],
    });
    // The same deletion, irreversible: the warning comes back, and only it and the Undo line change.
    const irreversible = shown({ ids: ids(12), count: 12_000, reversible: false });
    expect(irreversible.warnings).toEqual(['Cannot be undone']);
    expect(irreversible.fields[3]).toEqual({ label: 'Undo', value: 'Cannot be undone' });
  });

  it('says "1 customer record", and "and N more" for records counted but not named', () => {
    expect(shown({ ids: ['cus_1'], count: 1 }).title).toBe('Delete 1 customer record in crm');
    expect(shown({ ids: ['cus_1', 'cus_2'], count: 10 }).fields[2]).toEqual({ label: 'Ids', value: 'cus_1, cus_2 and 8 more' });
    expect(shown({ ids: ids(5), count: 5 }).fields[2]).toEqual({ label: 'Ids', value: 'cus_1, cus_2, cus_3, cus_4, cus_5' });
  });
});
