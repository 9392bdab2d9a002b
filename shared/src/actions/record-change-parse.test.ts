/** The record_change type as it is parsed: what it accepts as sent, and each change it refuses with its reason. */
import { describe, expect, it } from 'vitest';
import { EXAMPLE, parse, problems, change } from './record-change.test-support.ts';

describe('the record_change type', () => {
  it('accepts the documented record change as sent', () => {
    const result = parse({});
    expect(result.success).toBe(true);
    expect(result.data).toEqual([EXAMPLE]);
  });

  it('keeps a string value exactly as sent: it is what gets written', () => {
    const values = { changes: [{ field: 'note', from: ' padded  ', to: 'Cafe\u0301' }] };
    expect(parse(values).data![0]).toEqual({ ...EXAMPLE, ...values });
  });

  it('refuses unknown fields, in the action, its record and each change', () => {
    expect(problems({ upsert: true })).toEqual(['0: Unrecognized key: "upsert"']);
    expect(problems({ record: { kind: 'campaign', id: 'cmp_4', table: 'campaigns' } })).toEqual(['0.record: Unrecognized key: "table"']);
    expect(problems({ changes: [{ field: 'status', from: 'active', to: 'paused', unit: 'none' }] })).toEqual(['0.changes.0: Unrecognized key: "unit"']);
  });

  it('changes 1 to 50 fields', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ field: `f${i}`, from: i, to: i + 1 }));
    expect(parse({ changes: fields(50) }).success).toBe(true);
    expect(problems({ changes: fields(51) })).toEqual(['0.changes: Too big: expected array to have <=50 items']);
    expect(problems({ changes: [] })).toEqual(['0.changes: Too small: expected array to have >=1 items']);
  });

  it('refuses strings past their maximum', () => {
    expect(parse(change('a'.repeat(1000), 'b')).success).toBe(true);
    expect(problems(change('a'.repeat(1001), 'b'))).toEqual(['0.changes.0.from: Too big: expected string to have <=1000 characters']);
    expect(problems(change('a', 'b', 'f'.repeat(65)))).toEqual(['0.changes.0.field: Too big: expected string to have <=64 characters']);
    expect(problems({ record: { kind: 'k'.repeat(65), id: 'cmp_4' } })).toEqual(['0.record.kind: Too big: expected string to have <=64 characters']);
    expect(problems({ record: { kind: 'campaign', id: 'i'.repeat(129) } })).toEqual(['0.record.id: Too big: expected string to have <=128 characters']);
    expect(problems({ record: { kind: 'campaign', id: 'cmp_4', name: 'n'.repeat(141) } })).toEqual(['0.record.name: must be at most 140 characters']);
    expect(problems({ purpose: 'p'.repeat(5001) })).toEqual(['0.purpose: must be at most 5000 characters']);
  });

  it.each([
    ['a right-to-left override', '\u202e', 'must not hold a bidirectional control (U+202E)'],
    ['a zero-width space', '\u200b', 'must not hold an invisible or filler character (U+200B)'],
    ['a line feed (a control character)', '\n', 'must not hold a control character (U+000A)'],
  ])('refuses %s in a value, the record name and the purpose, naming it', (_name, character, reason) => {
    expect(problems(change(`act${character}ive`, 'paused'))).toEqual([`0.changes.0.from: ${reason}`]);
    expect(problems(change('active', `pau${character}sed`))).toEqual([`0.changes.0.to: ${reason}`]);
    expect(problems({ record: { kind: 'campaign', id: 'cmp_4', name: `Auto${character} EU` } })).toEqual([`0.record.name: ${reason}`]);
    expect(problems({ purpose: `Raise${character} payout` })).toEqual([`0.purpose: ${reason}`]);
  });

  it('refuses a field changed twice, and a change that changes nothing', () => {
    expect(
      problems({
        changes: [
          { field: 'status', from: 'active', to: 'paused' },
          { field: 'status', from: 'paused', to: 'archived' },
        ],
      }),
    ).toEqual(['0.changes.1.field: each field may be changed once']);
    expect(problems(change('active', 'active'))).toEqual(['0.changes.0.to: must differ from from: that changes nothing']);
    expect(problems(change(null, null))).toEqual(['0.changes.0.to: must differ from from: that changes nothing']);
    // Equal as JCS writes them: -0 is 0.
    expect(problems(change(-0, 0))).toEqual(['0.changes.0.to: must differ from from: that changes nothing']);
    // A string and a number are other values, though they read alike without quotes.
    expect(parse(change('17', 17)).success).toBe(true);
  });

  it('refuses a change a person cannot see: two strings that are one text in other code points (NFD and NFC)', () => {
    const reason = '0.changes.0.to: must differ from from as a person reads it: the two are the same text in other code points (Unicode normalization)';
    expect(problems(change('Cafe\u0301', 'Caf\u00e9'))).toEqual([reason]);
    expect(problems(change('Caf\u00e9', 'Cafe\u0301'))).toEqual([reason]);
    // Other text, even if only by an accent or a space, is a change the person can read.
    expect(parse(change('Cafe', 'Caf\u00e9')).success).toBe(true);
    expect(parse(change('active', 'active ')).success).toBe(true);
  });

  it('refuses a change a person cannot see: two strings that differ only in the kind of space (no-break, thin, en)', () => {
    const reason = '0.changes.0.to: must differ from from as a person reads it: the two differ only in the kind of space, which draws alike';
    expect(problems(change('Auto EU', 'Auto\u00a0EU'))).toEqual([reason]);
    expect(problems(change('Auto\u2009EU', 'Auto EU'))).toEqual([reason]);
    expect(problems(change('Cafe\u0301 EU', 'Caf\u00e9\u2002EU'))).toEqual([reason]);
    // Two spaces for one, or one more at the end, reads apart in the quoted before → after.
    expect(parse(change('Auto EU', 'Auto  EU')).success).toBe(true);
  });

  it('takes JSON scalars only, and names a number that is not finite', () => {
    expect(problems(change(Number.POSITIVE_INFINITY, 1))).toEqual(['0.changes.0.from: must be a finite number']);
    expect(problems(change(1, Number.NaN))).toEqual(['0.changes.0.to: must be a finite number']);
    expect(problems(change({ a: 1 }, 1))).toEqual(['0.changes.0.from: must be a string, a finite number, true, false or null']);
    expect(problems(change(1, [1]))).toEqual(['0.changes.0.to: must be a string, a finite number, true, false or null']);
    expect(problems(change(1, undefined))).toEqual(['0.changes.0.to: must be a string, a finite number, true, false or null']);
    expect(problems(change('a', 'b', 'pay out'))).toEqual(['0.changes.0.field: may hold only letters, digits and _.:-']);
  });
});
