import { describe, expect, it } from 'vitest';
import { authorizationDetails, displayAction } from './registry.ts';

const payment = { type: 'payment', transaction_id: 'refund_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' };
const deletion = { type: 'deletion', transaction_id: 'del_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1'], count: 1, reversible: false, purpose: 'Erasure request 88' };
const access = (from_role: string | null, to_role: string | null) => ({
  type: 'access_change',
  transaction_id: 'acc_1',
  principal: { id: 'u_9', name: 'Bo Li' },
  resource: { id: 'proj_1', name: 'Payments prod' },
  from_role,
  to_role,
  purpose: 'Quarterly review',
});
const tool = { type: 'tool_call', transaction_id: 'tc_1', server: 'shop', tool: 'refund_order', arguments: { order_id: '1042' } };

const displayed = (detail: unknown) => displayAction(authorizationDetails.parse([detail])[0]!);

describe('each action’s verb, for the approve button', () => {
  it('is the word its title starts with', () => {
    for (const [detail, verb] of [
      [payment, 'Pay'],
      [{ ...payment, refund: true }, 'Refund'],
      [{ ...payment, refund: false }, 'Pay'],
      [deletion, 'Delete'],
      [access(null, 'viewer'), 'Grant'],
      [access('viewer', null), 'Revoke'],
      [access('viewer', 'admin'), 'Change'],
    ] as const) {
      const display = displayed(detail);
      expect(display.verb).toBe(verb);
      expect(display.title.startsWith(`${verb} `)).toBe(true);
    }
  });

  it('is the tool’s own name for a tool call', () => {
    expect(displayed(tool).verb).toBe('refund_order');
  });
});
