// The client's own abortable sleep; the agent index exports only its type.
import { sleep as defaultSleep } from '../client/sleep.ts';
import { CountersignError } from '@countersign/shared';
import { buildApprovalRequest } from './build-action.ts';
import { isGatedTool } from './define-tool.ts';
import { describeTool } from './describe-tools.ts';
import { parseArguments } from './parse-arguments.ts';
import { createKeyedLock } from './keyed-lock.ts';
import { callKey, createMemoryPendingApprovals } from '../pending/index.ts';
import { refusalAsValue, refused } from './refusal.ts';
import type { ToolCallResult } from './result-types.ts';
import { createSettler, type Authorization, type RunnerClient } from './settle-approval.ts';
import type { AnyGatedTool, AnyPlainTool, AnyTool } from './tool-types.ts';

export type { Authorization, RunnerClient };
export type { AuthorizeOptions, AuthorizeRequest, CallOptions, ToolRunner, ToolRunnerOptions } from './runner-types.ts';
import type { AuthorizeOptions, CallOptions, ToolRunner, ToolRunnerOptions } from './runner-types.ts';

/**
 * Creates a tool runner: the place where "this tool needs a person's yes" is enforced, whatever
 * the prompt or the model says. See {@link ToolRunner}.
 *
 * @throws TypeError for two tools of one name.
 * @see CIBA Core 1.0 §7 (asking), §10 (polling and ping), docs/design.md guarantees 1, 3, 7, 8
 * @example One run that waits by polling
 * ```ts
 * const runner = createToolRunner({ client: createAgentClient({ issuer, clientId, clientSecret }),
 *   tools: [lookupOrder, refundOrder], wait: 'poll', waitTimeoutSeconds: 120 });
 * const result = await runner.call('refund_order', { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged' });
 * // { status: 'executed', result: { refund_id: 're_1' }, outcome: { status: 'succeeded', reference: 're_1', … } }
 * // or { status: 'approval_pending', auth_req_id, … }: end the run; later runner.resume(auth_req_id, sameArgs)
 * ```
 */
export function createToolRunner<C = undefined>(options: ToolRunnerOptions<C>): ToolRunner<C> {
  const { client, wait, waitTimeoutSeconds } = options;
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? defaultSleep;
  const pending = options.pending ?? createMemoryPendingApprovals(now);
  const tools = new Map<string, AnyTool<C>>();
  for (const tool of options.tools) {
    if (tools.has(tool.name)) throw new TypeError(`two tools are named ${tool.name}`);
    tools.set(tool.name, tool);
  }
  const descriptions = [...tools.values()].map(describeTool);
  // One lock per request for settling it, one per call for finding or asking for its approval.
  const exclusive = createKeyedLock();
  const asking = createKeyedLock();
  const { settle, authorize: decide, saveRunState } = createSettler<C>({ client, wait, waitTimeoutSeconds, pending, now, sleep });

  async function call(name: string, rawArgs: unknown, context?: C, { signal }: CallOptions = {}): Promise<ToolCallResult> {
    const tool = tools.get(name);
    if (!tool) return refused(name, new CountersignError('invalid_request', `there is no tool ${name}`));
    return refusalAsValue(tool.name, undefined, async () => {
      const args = parseArguments(tool, rawArgs);
      if (!isGatedTool(tool)) return runPlain(tool, args, context as C, signal);
      const { auth_req_id, pollFirst } = await ask(tool, args, context as C);
      return refusalAsValue(tool.name, auth_req_id, () => exclusive(auth_req_id, () => settle({ tool, args, context: context as C, auth_req_id, pollFirst, ...(signal ? { signal } : {}) })));
    });
  }

  /**
   * Finds the call's pending approval, or asks for one. Under the call's own lock, so the same
   * call made twice at once asks once; a call made again (by this process or the next, with the
   * same store) resumes the approval it was waiting for instead of asking the person again.
   */
  async function ask(tool: AnyGatedTool<C>, args: unknown, context: C): Promise<{ auth_req_id: string; pollFirst: boolean; call_key: string }> {
    const call_key = await callKey(tool.name, args);
    return asking(call_key, async () => {
      const known = await pending.get(call_key);
      if (known) return { auth_req_id: known.auth_req_id, pollFirst: true, call_key };
      const request = await buildApprovalRequest(tool, args, context);
      const ping = typeof wait === 'object' ? wait.ping : undefined;
      const asked = await client.requestApproval({ ...request, ...(ping ? { client_notification_token: ping.client_notification_token } : {}) });
      // The same transaction_id answers the same auth_req_id: keep a token already fetched for it.
      const sameRequest = await pending.getByRequest(asked.auth_req_id);
      if (sameRequest?.tool !== tool.name) {
        const code = asked.binding_code === undefined ? {} : { binding_code: asked.binding_code };
        await pending.put({ call_key, auth_req_id: asked.auth_req_id, tool: tool.name, interval: asked.interval, expires_at: now() + asked.expires_in * 1000, ...code });
      }
      return { auth_req_id: asked.auth_req_id, pollFirst: false, call_key };
    });
  }

  async function resume(auth_req_id: string, rawArgs: unknown, context?: C, { signal }: CallOptions = {}): Promise<ToolCallResult> {
    const record = await pending.getByRequest(auth_req_id);
    const tool = record && tools.get(record.tool);
    if (!tool || !isGatedTool(tool)) {
      return refused('', new CountersignError('invalid_grant', 'this runner has no pending approval for that auth_req_id'), auth_req_id);
    }
    return refusalAsValue(tool.name, auth_req_id, async () => {
      const args = parseArguments(tool, rawArgs);
      return exclusive(auth_req_id, () => settle({ tool, args, context: context as C, auth_req_id, pollFirst: true, ...(signal ? { signal } : {}) }));
    });
  }

  async function authorize(name: string, rawArgs: unknown, context?: C, options: AuthorizeOptions = {}): Promise<Authorization> {
    const { signal, onRequest } = options;
    const tool = tools.get(name);
    if (!tool || !isGatedTool(tool)) {
      return refused(name, new CountersignError('invalid_request', `there is no tool ${name} that needs approval`));
    }
    return refusalAsValue(tool.name, undefined, async () => {
      const args = parseArguments(tool, rawArgs);
      const { auth_req_id, pollFirst, call_key } = await ask(tool, args, context as C);
      return refusalAsValue(tool.name, auth_req_id, async () => {
        const held = await pending.getByRequest(auth_req_id);
        if (held && held.call_key !== call_key) {
          // Other arguments that build the very same action wait for this request already: one
          // approval runs one call, and a `call` with these arguments would find no token.
          throw new CountersignError('transaction_conflict', `${tool.name}: another call waits for approval of the same action`);
        }
        if (onRequest) await tellRequest(auth_req_id, onRequest);
        const wait = options.wait ? { wait: options.wait } : {};
        try {
          return await exclusive<Authorization>(auth_req_id, () => decide({ tool, args, context: context as C, auth_req_id, pollFirst, ...wait, ...(signal ? { signal } : {}) }));
        } catch (error) {
          // An aborted wait is no decision: the request stays on the server, the call resumes it.
          if (signal?.aborted && error === signal.reason) return undecided(tool.name, auth_req_id);
          throw error;
        }
      });
    });
  }

  async function tellRequest(auth_req_id: string, onRequest: NonNullable<AuthorizeOptions['onRequest']>) {
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return;
    const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
    const expires_in = Math.max(0, Math.ceil((record.expires_at - now()) / 1000));
    await onRequest({ call_key: record.call_key, auth_req_id, expires_in, approved: record.access_token !== undefined, ...code });
  }

  async function undecided(tool: string, auth_req_id: string): Promise<Authorization> {
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return refused(tool, new CountersignError('invalid_grant', 'the approval was already settled'), auth_req_id);
    const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
    return { status: 'approval_pending', tool, auth_req_id, expires_in: Math.max(0, Math.ceil((record.expires_at - now()) / 1000)), interval: record.interval, ...code };
  }

  async function keyOf(name: string, rawArgs: unknown): Promise<string> {
    const tool = tools.get(name);
    if (!tool) throw new CountersignError('invalid_request', `there is no tool ${name}`);
    return callKey(tool.name, parseArguments(tool, rawArgs));
  }

  return {
    pending,
    callKey: keyOf,
    listTools: () => [...descriptions],
    listGatedTools: () => descriptions.filter((tool) => tool.requiresApproval),
    call,
    resume,
    authorize,
    saveRunState,
  };
}

/** Runs an ungated tool; a throw is the tool's failure, told to the model. */
async function runPlain<C>(tool: AnyPlainTool<C>, args: unknown, context: C, signal?: AbortSignal): Promise<ToolCallResult> {
  try {
    const result: unknown = await tool.execute(args, { context, ...(signal ? { signal } : {}) });
    return { status: 'executed', tool: tool.name, result };
  } catch (error) {
    return { status: 'failed', tool: tool.name, reason: error instanceof Error ? error.message : String(error) };
  }
}
