import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { openApprovalRequests } from './open-approval-requests.ts';

// Which approval requests of a history still wait for an answer; the flows with a real server
// and the SDK's own generateText are in test/adapter-ai-sdk/.

const refund = { order_id: '1042', amount_minor: 49000 };

function assistant(...content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>): ModelMessage {
  return { role: 'assistant', content };
}

describe('openApprovalRequests', () => {
  it('lists the requests no response and no tool result answered, in order, with their call', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Refund 1042 and 1043, then look up 1044.' },
      assistant(
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'refund_order', input: refund },
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'refund_order', input: { ...refund, order_id: '1043' } },
        { type: 'tool-call', toolCallId: 'call_3', toolName: 'lookup_order', input: { order_id: '1044' } },
        { type: 'tool-approval-request', approvalId: 'ap_1', toolCallId: 'call_1' },
        { type: 'tool-approval-request', approvalId: 'ap_2', toolCallId: 'call_2' },
        // The SDK's own automatic decision: nobody is asked for it.
        { type: 'tool-approval-request', approvalId: 'ap_3', toolCallId: 'call_3', isAutomatic: true },
      ),
    ];
    expect(openApprovalRequests(messages)).toEqual([
      { approvalId: 'ap_1', toolCallId: 'call_1', toolName: 'refund_order', input: refund },
      { approvalId: 'ap_2', toolCallId: 'call_2', toolName: 'refund_order', input: { ...refund, order_id: '1043' } },
    ]);

    messages.push({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap_2', approved: true }] });
    expect(openApprovalRequests(messages).map((request) => request.approvalId)).toEqual(['ap_1']);

    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'refund_order', output: { type: 'json', value: null } }] });
    expect(openApprovalRequests(messages)).toEqual([]);
  });

  it('skips a request whose call is not in the history, and takes ids that look like object members as ids', () => {
    const messages: ModelMessage[] = [
      assistant({ type: 'tool-approval-request', approvalId: 'ap_orphan', toolCallId: 'call_missing' }, { type: 'tool-call', toolCallId: '__proto__', toolName: 'refund_order', input: refund }, { type: 'tool-approval-request', approvalId: 'constructor', toolCallId: '__proto__' }),
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'toString', approved: true }] },
    ];
    expect(openApprovalRequests(messages)).toEqual([{ approvalId: 'constructor', toolCallId: '__proto__', toolName: 'refund_order', input: refund }]);
    expect(
      openApprovalRequests([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
    ).toEqual([]);
  });
});
