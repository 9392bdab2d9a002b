import type { z } from 'zod';
import type { AnyGatedTool, AnyTool, GatedTool, PlainTool } from './tool-types.ts';

/** The tool names model APIs accept (OpenAI and Anthropic both allow `^[a-zA-Z0-9_-]{1,64}$`). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Defines a tool. A tool with `approval` needs a person's yes for every call: that mark lives in
 * the tool's own definition, where no prompt can remove it, and a tool runner enforces it.
 *
 * Write `execute` before `approval`: TypeScript infers an object literal's members in order, so
 * `approval.reference(result)` then gets `execute`'s result type.
 *
 * @returns the definition, frozen, so nothing can unmark a tool after a runner listed it.
 * @throws TypeError for a name a model API would refuse, or an `approval` without
 *   `toAuthorizationDetails` or `login_hint`.
 * @example A gated tool
 * ```ts
 * const payInvoice = defineTool({
 *   name: 'pay_invoice',
 *   description: 'Pays a supplier invoice, once the finance lead approved it.',
 *   parameters: z.strictObject({ invoice_id: z.string(), amount_minor: z.number().int().positive() }),
 *   execute: (args, { idempotency_key }) => bank.pay({ ...args, idempotency_key }), // → { payment_id }
 *   approval: {
 *     login_hint: 'finance_lead',
 *     toAuthorizationDetails: (args) => [{ type: 'payment', transaction_id: args.invoice_id,
 *       amount_minor: args.amount_minor, currency: 'EUR', payee: { id: 'acct_9', name: 'Paper Supplies GmbH' },
 *       purpose: `Invoice ${args.invoice_id}` }],
 *     binding_message: (args) => `Invoice ${args.invoice_id}`,
 *     reference: (result) => result.payment_id,
 *   },
 * });
 * ```
 * @example An ungated tool
 * ```ts
 * const lookupOrder = defineTool({ name: 'lookup_order', description: 'Finds an order.',
 *   parameters: z.strictObject({ order_id: z.string() }), execute: (args) => orders.findOrder(args.order_id) });
 * ```
 */
export function defineTool<S extends z.ZodType, R, C = unknown>(tool: GatedTool<S, R, C>): GatedTool<S, R, C>;
export function defineTool<S extends z.ZodType, R, C = unknown>(tool: PlainTool<S, R, C>): PlainTool<S, R, C>;
export function defineTool(tool: AnyTool): AnyTool {
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    throw new TypeError(`tool name ${JSON.stringify(tool.name)} must be 1 to 64 letters, digits, _ and -`);
  }
  if (typeof tool.execute !== 'function') throw new TypeError(`tool ${tool.name} needs an execute function`);
  const { approval } = tool;
  if (approval !== undefined) {
    if (typeof approval?.toAuthorizationDetails !== 'function') {
      throw new TypeError(`tool ${tool.name}: approval needs toAuthorizationDetails(args)`);
    }
    if (typeof approval.login_hint !== 'string' && typeof approval.login_hint !== 'function') {
      throw new TypeError(`tool ${tool.name}: approval needs a login_hint`);
    }
    return Object.freeze({ ...tool, approval: Object.freeze({ ...approval }) });
  }
  return Object.freeze({ ...tool });
}

/** True when `tool` is marked as needing approval. */
export function isGatedTool<C>(tool: AnyTool<C>): tool is AnyGatedTool<C> {
  return tool.approval !== undefined;
}
