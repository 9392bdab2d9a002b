import { describe, expect, it } from 'vitest';
import { formatWhen } from './format-time.ts';

describe('formatWhen', () => {
  const now = new Date(2026, 2, 3, 18, 30);

  it('says today and yesterday, with the time', () => {
    expect(formatWhen(new Date(2026, 2, 3, 14, 5).toISOString(), now, 'en-GB')).toBe('today, 14:05');
    expect(formatWhen(new Date(2026, 2, 2, 9, 12).toISOString(), now, 'en-GB')).toBe('yesterday, 09:12');
  });

  it('gives the date further back, and nothing for a time it cannot read', () => {
    expect(formatWhen(new Date(2026, 0, 20, 7, 0).toISOString(), now, 'en-GB')).toBe('20 Jan 2026, 07:00');
    expect(formatWhen('not a time', now, 'en-GB')).toBe('');
  });
});
