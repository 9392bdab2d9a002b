// refund-agent.mjs: a support agent whose refunds run only after the support lead approved
// the exact refund on their phone. Plain Node ≥ 22, no build step.
// COUNTERSIGN_ISSUER=… COUNTERSIGN_CLIENT_ID=… COUNTERSIGN_CLIENT_SECRET=… OPENAI_API_KEY=… node refund-agent.mjs
import { createAgentClient, CountersignError, defineTool, z } from '@countersign/agent';
import { countersign } from '@countersign/ai-sdk';
import { openai } from '@ai-sdk/openai';
import { generateText, stepCountIs } from 'ai';

const client = createAgentClient({
  issuer: process.env.COUNTERSIGN_ISSUER,
  clientId: process.env.COUNTERSIGN_CLIENT_ID,
  clientSecret: process.env.COUNTERSIGN_CLIENT_SECRET,
});
const model = openai('gpt-4.1-mini');

// Who paid for each order: the refund's payee comes from here, never from the model.
const orders = { 1042: { id: 'acct_77', name: 'ACME Ltd' } };

const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refunds an amount of an order to the customer who paid. Runs only once a person approved this exact refund.',
  parameters: z.strictObject({
    order_id: z.string().regex(/^\w{1,40}$/),
    amount_minor: z.number().int().positive().describe('Amount in cents: 490.00 EUR is 49000.'),
    currency: z.literal('EUR'),
    reason: z.string().min(1).max(200),
  }),
  // Runs after Countersign redeemed the approval against these very arguments; hand the
  // idempotency key to your payment provider so a retry never refunds twice.
  execute: async (args, { idempotency_key }) => {
    console.log(`refunding ${args.amount_minor} ${args.currency} on order ${args.order_id} (key ${idempotency_key})`);
    return { refund_id: `re_${idempotency_key}` };
  },
  approval: {
    login_hint: 'support_lead',
    toAuthorizationDetails: (args) => {
      const payee = orders[args.order_id];
      if (!payee) throw new CountersignError('not_found', `no order ${args.order_id}`);
      return [{ type: 'payment', transaction_id: `refund_${args.order_id}`, amount_minor: args.amount_minor, currency: args.currency, payee, purpose: args.reason }];
    },
    binding_message: (args) => `Refund order ${args.order_id}`,
    reference: (result) => result.refund_id,
  },
});

// Once per process: it keeps the approvals that wait (pass `pending: createRedisPendingApprovals(redis)` to survive restarts).
const gate = countersign({ client, tools: [refundOrder], wait: 'poll', waitTimeoutSeconds: 300 });

const messages = [{ role: 'user', content: 'Order 1042 arrived broken. Please refund the 490.00 EUR.' }];
let result = await generateText({ model, ...gate.settings(), messages, stopWhen: stepCountIs(5) });
messages.push(...result.responseMessages);
for (const part of result.content) {
  if (part.type === 'tool-approval-request') console.log(part.reason); // "Waiting for the approver to decide in Countersign (request …)."
}

// The support lead decides on their phone; an approval response the app makes up runs nothing.
const answers = await gate.waitForDecisions(messages);
if (answers) {
  messages.push(answers);
  result = await generateText({ model, ...gate.settings(), messages, stopWhen: stepCountIs(5) });
}
console.log(result.text);
