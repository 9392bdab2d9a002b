import { describe, expect, it } from 'vitest';
import { jsonDiff } from './json-diff.ts';

describe('jsonDiff', () => {
  it('finds nothing between equal documents', () => {
    expect(jsonDiff({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toStrictEqual([]);
  });

  it('names each changed leaf by its JSON pointer, members sorted', () => {
    const from = { tiers: [{ name: 'standard', number_matching: false }], limits: { max: 10 } };
    const to = { tiers: [{ name: 'standard', number_matching: true }], limits: { max: 5 } };
    expect(jsonDiff(from, to)).toStrictEqual([
      { path: '/limits/max', from: 10, to: 5 },
      { path: '/tiers/0/number_matching', from: false, to: true },
    ]);
  });

  it('leaves out from for an addition and to for a removal, in arrays too', () => {
    expect(jsonDiff({ a: 1, list: [1, 2] }, { b: 2, list: [1] })).toStrictEqual([
      { path: '/a', from: 1 },
      { path: '/b', to: 2 },
      { path: '/list/1', from: 2 },
    ]);
  });

  it('escapes ~ and / in member names (RFC 6901 §3)', () => {
    expect(jsonDiff({ 'a/b': { 'c~d': 1 } }, { 'a/b': { 'c~d': 2 } })).toStrictEqual([{ path: '/a~1b/c~0d', from: 1, to: 2 }]);
  });

  it('replaces a value whose kind changed as one change', () => {
    expect(jsonDiff({ a: { b: 1 } }, { a: [1] })).toStrictEqual([{ path: '/a', from: { b: 1 }, to: [1] }]);
    expect(jsonDiff({ a: null }, { a: {} })).toStrictEqual([{ path: '/a', from: null, to: {} }]);
    expect(jsonDiff(1, 2)).toStrictEqual([{ path: '', from: 1, to: 2 }]);
  });
});
