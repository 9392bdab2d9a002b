import type { ActionDisplay } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { approveWord } from './decision-bar.ts';

const action = (type: string, verb: string): ActionDisplay => ({ type, verb, title: `${verb} something`, summary: '', fields: [] });

describe('the approve button’s word', () => {
  it('is the server’s verb for the action', () => {
    expect(approveWord({ actions: [action('payment', 'Pay')] })).toBe('Pay');
    expect(approveWord({ actions: [action('access_change', 'Revoke')] })).toBe('Revoke');
    expect(approveWord({ actions: [action('tool_call', 'refund_order')] })).toBe('refund_order');
  });

  it('says a batch’s shared verb once, and Approve for a mixed batch', () => {
    expect(approveWord({ actions: [action('payment', 'Pay'), action('payment', 'Pay')] })).toBe('Pay');
    expect(approveWord({ actions: [action('payment', 'Pay'), action('deletion', 'Delete')] })).toBe('Approve');
  });
});
