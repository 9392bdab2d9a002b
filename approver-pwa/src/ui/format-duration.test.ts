import { describe, expect, it } from 'vitest';
import { formatDuration, timeLeftText } from './format-duration.ts';

describe('formatDuration', () => {
  it('shows minutes and zero-padded seconds', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(65)).toBe('1:05');
    expect(formatDuration(600)).toBe('10:00');
  });

  it('shows hours past an hour and clamps negatives', () => {
    expect(formatDuration(3723)).toBe('1:02:03');
    expect(formatDuration(-5)).toBe('0:00');
  });

  it('says Expired at 0', () => {
    expect(timeLeftText(0)).toBe('Expired');
    expect(timeLeftText(42)).toBe('0:42 left');
  });
});
