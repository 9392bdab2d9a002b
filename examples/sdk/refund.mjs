// refund.mjs: an agent's refund tool, gated by Countersign. Plain JavaScript, Node 20 or later.
// COUNTERSIGN_URL=http://localhost:8080 CLIENT_ID=… CLIENT_SECRET=… APPROVER=demo node refund.mjs
import { createAgentClient, createToolRunner, defineTool, z } from '@countersign/agent';

const countersign = createAgentClient({
  issuer: process.env.COUNTERSIGN_URL ?? 'http://localhost:8080',
  clientId: process.env.CLIENT_ID,
  clientSecret: process.env.CLIENT_SECRET,
});

const refundOrder = defineTool({
  name: 'refund_order',
  description: 'Refunds an amount on a customer order. Runs only once a person approved this exact refund.',
  parameters: z.strictObject({
    order_id: z.string().regex(/^\d{1,12}$/),
    amount_minor: z.number().int().positive(), // cents for EUR: 49.00 EUR is 4900
    currency: z.string().regex(/^[A-Z]{3}$/),
  }),
  approval: {
    login_hint: () => process.env.APPROVER ?? 'demo',
    // The exact action the person approves, built from the arguments (never from model text).
    toAuthorizationDetails: (args) => [
      {
        type: 'payment',
        transaction_id: `refund_${args.order_id}`,
        amount_minor: args.amount_minor,
        currency: args.currency,
        payee: { id: `cus_${args.order_id}`, name: 'Ada Lovelace' },
        purpose: `Refund for order ${args.order_id}`,
      },
    ],
    binding_message: (args) => `Refund order ${args.order_id}`,
    reference: (result) => result.refund_id,
  },
  // Runs only after the approval token was redeemed against these same arguments. Pass the
  // idempotency_key to your payment provider so that a retry never refunds twice.
  execute: async (args, { idempotency_key }) => ({ refund_id: `re_${idempotency_key.slice(-12)}` }),
});

const runner = createToolRunner({ client: countersign, tools: [refundOrder], wait: 'poll', waitTimeoutSeconds: 300 });
const result = await runner.call('refund_order', { order_id: '1042', amount_minor: 4900, currency: 'EUR' });
// { status: 'executed', result: { refund_id }, outcome: { status: 'succeeded', … } }, or denied,
// expired, refused (with the server's error code), approval_pending after waitTimeoutSeconds.
console.log(JSON.stringify(result));
