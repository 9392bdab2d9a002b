/**
 * An agent as its own OS process, for restart tests: `node --import tsx test/support/agent-process.ts
 * <config.json>`. It makes one gated tool call through a tool runner whose pending approvals are
 * in Redis, and prints the call's result as one JSON line. The tool's real work is appending one
 * line to `config.executions`, so the test counts executions across processes.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createAgentClient, createRedisPendingApprovals, createToolRunner, defineTool, z } from '@countersign/agent';

export interface AgentProcessConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redisUrl: string;
  prefix: string;
  approver: string;
  /** File the tool appends one line to each time it really runs. */
  executions: string;
  /** File the agent client appends `<pid> <method> <path>` to for each call to the server. */
  calls: string;
  args: { invoice_id: string; amount_minor: number };
}

const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as AgentProcessConfig;
const redis = new Redis(config.redisUrl);
const payInvoice = defineTool({
  name: 'pay_invoice',
  description: 'Pays a supplier invoice.',
  parameters: z.strictObject({ invoice_id: z.string().regex(/^inv_\w{1,40}$/), amount_minor: z.number().int().positive() }),
  execute: (args, { idempotency_key }) => {
    appendFileSync(config.executions, `${JSON.stringify({ pid: process.pid, ...args, idempotency_key })}\n`);
    return { payment_id: `pay_${args.invoice_id}` };
  },
  approval: {
    login_hint: () => config.approver,
    toAuthorizationDetails: (args) => [{ type: 'payment', transaction_id: args.invoice_id, amount_minor: args.amount_minor, currency: 'EUR', payee: { id: 'acct_supplier_9', name: 'Paper Supplies GmbH' }, purpose: `Invoice ${args.invoice_id}` }],
    reference: (result) => result.payment_id,
  },
});
const runner = createToolRunner({
  client: createAgentClient({
    issuer: config.issuer,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    fetch: (url, init) => {
      appendFileSync(config.calls, `${process.pid} ${init.method ?? 'GET'} ${new URL(url).pathname}\n`);
      return fetch(url, init);
    },
  }),
  tools: [payInvoice],
  wait: 'poll',
  pending: createRedisPendingApprovals(redis, { prefix: config.prefix }),
});
const result = await runner.call('pay_invoice', config.args);
process.stdout.write(`${JSON.stringify(result)}\n`);
await redis.quit();
