import { isCurrencyCode } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { REACH_NAMES, reachAmounts, reachLimits, velocityRefusalReason } from './velocity-reach.ts';

describe('velocity reach', () => {
  it('totals records and recipients under names no currency has, and only those above 0', () => {
    expect(Object.values(REACH_NAMES).filter(isCurrencyCode)).toEqual([]);
    expect(reachAmounts({ records: 0, recipients: 12 })).toEqual({ ZZM: 12 });
    expect(reachLimits({ max_records: 100 })).toEqual({ ZZR: 100 });
  });

  it('says which total a refused window ran out of', () => {
    const full = { ok: false, count: 3, totals: { ZZR: 90, EUR: 10 } };
    expect(velocityRefusalReason({ ...full, exceeded: 'amount' }, { ZZR: 11 }, { ZZR: 100, ZZM: 5 })).toBe('records to delete (at most 100)');
    expect(velocityRefusalReason({ ...full, exceeded: 'amount' }, { ZZM: 6 }, { ZZR: 100, ZZM: 5 })).toBe('recipients (at most 5)');
    expect(velocityRefusalReason({ ...full, exceeded: 'amount' }, { EUR: 1 }, { EUR: 10 })).toBe('requests, or too much money,');
    expect(velocityRefusalReason({ ...full, exceeded: 'count' }, { ZZR: 11 }, { ZZR: 100 })).toBe('requests');
  });
});
