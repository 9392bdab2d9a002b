// support-agent.ts — Node 22.18 or later runs it as it is: `node support-agent.ts`
import { Agent } from '@openai/agents';
import { createAgentClient, createRedisPendingApprovals, defineTool, z } from '@countersign/agent';
import { createApprovalGate } from '@countersign/openai-agents';
import { Redis } from 'ioredis';

// Your payment provider; here a stand-in that prints what it would do.
const payments = {
  async refund(refund: { order_id: string; amount_minor: number; currency: string; idempotency_key: string }) {
    console.log('refunding', refund);
    return { refund_id: `re_${refund.idempotency_key}` };
  },
};

// A tool marked as needing approval: the mark lives in its definition, where no prompt removes it.
const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refunds a customer order. Runs only once the support lead approved this exact refund on their phone.',
  parameters: z.strictObject({
    order_id: z.string().regex(/^\d{1,20}$/),
    amount_minor: z.number().int().positive().describe('In cents: 490.00 EUR is 49000.'),
    currency: z.literal('EUR'),
    reason: z.string().min(1).max(200),
  }),
  // Runs only after Countersign redeemed the approval against these very arguments.
  execute: (args, { idempotency_key }) => payments.refund({ ...args, idempotency_key }),
  approval: {
    login_hint: 'support_lead',
    // The exact action the person approves. Look the payee up in your systems: never take it from the model.
    toAuthorizationDetails: (args) => [
      {
        type: 'payment',
        transaction_id: `refund_${args.order_id}`,
        amount_minor: args.amount_minor,
        currency: args.currency,
        payee: { id: 'acct_77', name: 'ACME Ltd' },
        purpose: args.reason,
      },
    ],
    reference: (result) => result.refund_id,
  },
});

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const gate = createApprovalGate({
  client: createAgentClient({
    issuer: process.env.COUNTERSIGN_ISSUER!,
    clientId: process.env.COUNTERSIGN_CLIENT_ID!,
    clientSecret: process.env.COUNTERSIGN_CLIENT_SECRET!,
  }),
  tools: [refundOrder],
  wait: 'poll',
  // Pending approvals, each with its paused run, survive a restart here.
  pending: createRedisPendingApprovals(redis),
  onWaiting: (call) => console.log(`Waiting for the support lead to approve ${call.tool} on their phone…`),
});

const agent = new Agent({
  name: 'Support',
  instructions: 'You help customers with damaged orders. Refund them when asked; amounts are in cents.',
  tools: gate.tools,
});

// First, the runs a previous process left waiting for approval (after a crash or a deploy).
for (const resumed of await gate.resumePending(agent)) {
  console.log('resumed:', 'result' in resumed ? resumed.result.finalOutput : resumed.error);
}

const result = await gate.run(agent, 'Order 1042 arrived broken. Please refund the 490.00 EUR.');
console.log(result.finalOutput);
await redis.quit();
