import { z } from 'zod';
import { expect, vi } from 'vitest';
import type { AgentClient, TokenPollResult } from '../client/index.ts';
import type { RedeemResponse, TokenResponse } from '@countersign/shared';
import type { PendingApprovals } from '../pending/index.ts';
import { createToolRunner, type RunnerClient } from './create-tool-runner.ts';
import { defineTool } from './define-tool.ts';
import type { WaitStrategy } from './wait-for-approval.ts';

// The runner's own logic against a stubbed agent client, shared by the create-tool-runner-*.test.ts
// files. The real gate (a server, a passkey, hashes, single use) is driven end to end in
// test/guarantees/tool-runner/.

/** The gated tool's arguments: an account to pay, an amount in minor units, an optional note. */
export const transfer = z.strictObject({ to: z.string().regex(/^acct_\w+$/), amount_minor: z.number().int().positive(), note: z.string().trim().optional() });

/** The payment the gated tool asks the person to approve for `args`. */
export function details(args: z.output<typeof transfer>) {
  return [{ type: 'payment' as const, transaction_id: `t_${args.to}_${args.amount_minor}`, amount_minor: args.amount_minor, currency: 'EUR', payee: { id: args.to, name: 'Payee' }, purpose: 'Transfer' }];
}

/** A runner with an ungated `get_balance` and a gated `send_money`, over a stubbed client that answers `decision`. */
export function setUp({ wait = 'none' as WaitStrategy, decision = approved() as TokenPollResult, waitTimeoutSeconds = undefined as number | undefined, pending = undefined as PendingApprovals | undefined } = {}) {
  const client = {
    requestApproval: vi.fn<AgentClient['requestApproval']>(async () => ({ auth_req_id: 'req_1', expires_in: 300, interval: 5 })),
    pollToken: vi.fn<AgentClient['pollToken']>(async () => decision),
    waitForDecision: vi.fn<AgentClient['waitForDecision']>(async () => decision as never),
    redeem: vi.fn<AgentClient['redeem']>(async (_token, authorization_details) => redeemed(authorization_details)),
    reportOutcome: vi.fn<AgentClient['reportOutcome']>(async () => {}),
  } satisfies RunnerClient;
  const execute = vi.fn(async (args: z.output<typeof transfer>, { idempotency_key }: { idempotency_key: string }) => {
    expect(Object.isFrozen(args)).toBe(true);
    return { transfer_id: `tr_${idempotency_key}` };
  });
  const send = defineTool({
    name: 'send_money',
    description: 'Sends money.',
    parameters: transfer,
    approval: {
      login_hint: (_args, context: { approver: string }) => context.approver,
      toAuthorizationDetails: details,
      binding_message: (args) => `Send ${args.amount_minor}`,
      reference: (result) => result.transfer_id,
    },
    execute,
  });
  const lookup = vi.fn(async (args: { to: string }, { context }: { context: { approver: string } }) => ({ owner: `owner of ${args.to}`, asked_by: context.approver }));
  const balance = defineTool({ name: 'get_balance', description: 'Reads a balance.', parameters: z.strictObject({ to: z.string() }), execute: lookup });
  const runner = createToolRunner({ client, tools: [balance, send], wait, ...(waitTimeoutSeconds === undefined ? {} : { waitTimeoutSeconds }), ...(pending ? { pending } : {}) });
  return { client, execute, lookup, runner };
}

/** The context every call passes: who approves. */
export const context = { approver: 'alice' };
/** Valid arguments of `send_money`. */
export const args = { to: 'acct_7', amount_minor: 500 };

/** A poll answer: approved, with a token. */
export function approved(): TokenPollResult {
  const token: TokenResponse = { access_token: 'at_1', token_type: 'Bearer', expires_in: 600, id_token: 'idt', authorization_details: [] as never };
  return { status: 'approved', token };
}

/** A redeem answer: redeemed, for `authorization_details`. */
export function redeemed(authorization_details: RedeemResponse['authorization_details']): RedeemResponse {
  return { status: 'redeemed', redemption_id: 'red_1', idempotency_key: 'idem_1', authorization_details, redeemed_at: '2025-01-01T00:00:00.000Z' };
}
