import { describe, expect, it } from 'vitest';
import { escalationText } from './request-facts.ts';

describe('escalationText', () => {
  const now = new Date(2026, 11, 3, 14, 0);
  const at = new Date(2026, 11, 3, 14, 5).toISOString();

  it('says who gets the request next, and who holds it once handed on', () => {
    expect(escalationText({ state: 'pending', escalation: { step: 0, steps: 2, holder: ['customer'], next: 'role:ops', next_at: at } }, now)).toMatch(/^Goes to an ops at today, .+ if nobody decides\.$/);
    expect(escalationText({ state: 'pending', escalation: { step: 1, steps: 2, holder: ['role:ops'], next: 'role:manager', next_at: at } }, now)).toMatch(/^Escalated: now with an ops\. Goes to a manager at today, .+ if nobody decides\.$/);
    expect(escalationText({ state: 'pending', escalation: { step: 2, steps: 2, holder: ['role:manager'], next: null, next_at: null } }, now)).toBe('Escalated: now with a manager.');
  });

  it('says nothing without a chain, or once the request is over', () => {
    expect(escalationText({ state: 'pending' }, now)).toBeNull();
    expect(escalationText({ state: 'expired', escalation: { step: 2, steps: 2, holder: [], next: null, next_at: null } }, now)).toBeNull();
    expect(escalationText({ state: 'pending', escalation: { step: 0, steps: 1, holder: ['customer'], next: null, next_at: null } }, now)).toBeNull();
  });
});
