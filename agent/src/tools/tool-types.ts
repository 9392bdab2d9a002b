import type { z } from 'zod';
import type { AuthorizationDetails } from '@countersign/shared';
import type { RedeemResponse } from '@countersign/shared';

/** A value, or a promise of it: tool hooks may be synchronous or not. */
export type Awaitable<T> = T | Promise<T>;

/**
 * How a tool asks for a person's yes. Its presence in a tool's definition is what marks the tool
 * as needing approval; the runner, not the prompt, enforces it.
 *
 * @typeParam A - the tool's validated arguments (the output of its `parameters` schema).
 * @typeParam R - what the tool's `execute` returns.
 * @typeParam C - the caller's context passed to every hook (a session, a tenant…).
 */
export interface ApprovalSpec<A, R, C> {
  /**
   * Turns the arguments into the exact action the person approves, as RFC 9396
   * `authorization_details`. Called once to ask and again right before execution, each time from
   * the arguments `execute` then receives, so the server's hash comparison (docs/design.md
   * guarantee 3) covers what really runs. Throw a `CountersignError` with a 4xx code
   * (`invalid_request`, `not_found`) to refuse the call.
   */
  toAuthorizationDetails(args: A, context: C): Awaitable<AuthorizationDetails>;
  /** The `sub` of the person who approves: fixed, or chosen from the arguments and context. */
  login_hint: string | ((args: A, context: C) => Awaitable<string>);
  /** A short text shown on the phone and to the person by the agent (CIBA Core §7.1), ≤ 64 characters. */
  binding_message?(args: A, context: C): string | undefined;
  /** Seconds the request may stay pending; the server's default when absent. */
  requested_expiry?: number;
  /**
   * The executor's own reading, right before it acts, of the records the action's `precondition`s
   * name (record → version, `current_versions` of `/redeem`). Called once per execution, after the
   * approval and before the redemption; a version that moved since the approval is refused with
   * `stale_record` and nothing runs. Needed only by tools whose actions carry a precondition.
   */
  currentVersions?(args: A, context: C): Awaitable<Record<string, string>>;
  /** The executor's reference for a successful run (a refund id…), reported as the outcome's `reference`. */
  reference?(result: R): string | undefined;
}

/** What a gated tool's `execute` receives besides its arguments: the spent approval. */
export interface ApprovedExecution<C> {
  context: C;
  /** The redemption's idempotency key: hand it to the system that acts, so a retry never acts twice. */
  idempotency_key: string;
  /** The whole redemption record of `POST /redeem`. */
  redemption: RedeemResponse;
  signal?: AbortSignal;
}

/** What an ungated tool's `execute` receives besides its arguments. */
export interface PlainExecution<C> {
  context: C;
  signal?: AbortSignal;
}

/** What every tool has: a name and a description for the model, and a zod schema of its arguments. */
interface ToolBase<S extends z.ZodType> {
  /** 1 to 64 letters, digits, `_` and `-`: the name a model calls the tool by. */
  readonly name: string;
  /** What the tool does, for a model to read. */
  readonly description: string;
  /** The arguments' schema; the runner refuses a call whose arguments do not parse. */
  readonly parameters: S;
}

/** A tool that runs only with a person's approval, redeemed once against its exact arguments. */
export interface GatedTool<S extends z.ZodType = z.ZodType, R = unknown, C = unknown> extends ToolBase<S> {
  readonly approval: ApprovalSpec<z.output<S>, R, C>;
  /**
   * Performs the action. The runner calls it only after `POST /redeem` accepted the action rebuilt
   * from these same arguments. A throw is reported as a `failed` outcome with the error's message.
   */
  execute(args: z.output<S>, execution: ApprovedExecution<C>): Awaitable<R>;
}

/** A tool that needs no approval (reading, looking up): the runner validates its arguments and runs it. */
export interface PlainTool<S extends z.ZodType = z.ZodType, R = unknown, C = unknown> extends ToolBase<S> {
  readonly approval?: undefined;
  execute(args: z.output<S>, execution: PlainExecution<C>): Awaitable<R>;
}

/** Any tool a runner accepts. */
// `any` for arguments and result: a list holds tools of different schemas, and the runner only
// passes each tool the output of its own schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool<C = any> = AnyGatedTool<C> | AnyPlainTool<C>;

/** Any gated tool. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGatedTool<C = any> = GatedTool<any, any, C>;

/** Any ungated tool. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlainTool<C = any> = PlainTool<any, any, C>;

/** How a tool is shown to a model (and to an operator listing the gated ones). */
export interface ToolDescription {
  name: string;
  description: string;
  /** True when the tool runs only with a person's approval. */
  requiresApproval: boolean;
  /** The arguments as a JSON Schema (draft 2020-12), from the tool's zod schema. */
  parameters: Record<string, unknown>;
}
