import { describe, expect, it } from 'vitest';
import { fieldTestId } from './action-card.ts';
import { describeResult } from './request-result.ts';

describe('describeResult', () => {
  it('follows the request from approval to its outcome', () => {
    expect(describeResult({ state: 'pending', outcome: null }).kind).toBe('pending');
    expect(describeResult({ state: 'approved', outcome: null }).kind).toBe('approved');
    expect(describeResult({ state: 'redeemed', outcome: null }).kind).toBe('awaiting_outcome');
    expect(describeResult({ state: 'redeemed', outcome: { status: 'unknown' } }).kind).toBe('awaiting_outcome');
    expect(describeResult({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' } })).toMatchObject({ kind: 'executed', headline: 'Executed' });
    expect(describeResult({ state: 'redeemed', outcome: { status: 'failed', reason: 'card declined' } })).toMatchObject({ kind: 'failed', headline: 'Failed' });
  });

  it('says a pending request waits for others once this person has nothing left to approve', () => {
    const approvals = [
      { party: 'customer' as const, label: 'Customer', status: 'approved' as const, approved_at: '2026-03-03T14:05:00Z' },
      { party: 'role:reviewer:finance' as const, label: 'reviewer:finance', status: 'waiting' as const, approved_at: null },
    ];
    expect(describeResult({ state: 'pending', outcome: null, approvals, viewer: { party: null, can_decide: true, can_report: true } })).toMatchObject({ kind: 'waiting', detail: expect.stringContaining('Finance reviewer') });
    expect(describeResult({ state: 'pending', outcome: null, approvals, viewer: { party: 'role:reviewer:finance', can_decide: true, can_report: false } }).kind).toBe('pending');
  });

  it('says a reported request is denied and its agent blocked', () => {
    expect(describeResult({ state: 'denied', outcome: null, client_name: 'Support agent' }, { reported: true })).toMatchObject({ kind: 'denied', headline: 'Denied and reported', detail: expect.stringContaining('Support agent is blocked') });
  });

  it('says a wrong code denied the request and that the agent must send it again, never to pick again', () => {
    const wrong = describeResult({ state: 'denied', outcome: null }, { wrongCode: true });
    expect(wrong).toEqual({ kind: 'denied', headline: 'Denied: wrong code', detail: 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.' });
    expect(wrong.detail).not.toMatch(/pick again|tries left/);
  });

  it('says denied and expired requests lead to nothing', () => {
    expect(describeResult({ state: 'denied', outcome: null })).toMatchObject({ kind: 'denied', headline: 'Denied' });
    expect(describeResult({ state: 'expired', outcome: null })).toMatchObject({ kind: 'expired', headline: 'Expired' });
  });
});

describe('fieldTestId', () => {
  it('slugs labels and keeps clear of the screen’s own test ids', () => {
    expect(fieldTestId('Payee')).toBe('payee');
    expect(fieldTestId('Reference no.')).toBe('reference-no');
    expect(fieldTestId('Amount')).toBe('field-amount');
    expect(fieldTestId('—')).toBe('field');
  });
});
