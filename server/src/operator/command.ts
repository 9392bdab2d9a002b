import type { AdminApi } from './admin-api.ts';
import type { Output } from './output.ts';

/** What every command is given: the admin API, where to write, and the options shared by all. */
export interface CommandContext {
  api: AdminApi;
  output: Output;
  /** `--json`: machine-readable output on stdout, and nothing else there. */
  json: boolean;
  /** Waits (polling commands); injected by tests. */
  sleep(ms: number): Promise<void>;
  /** Aborted on Ctrl-C: a following command stops cleanly. */
  signal: AbortSignal;
}

/** A command's own arguments (after the command words), and what it answers: the exit code. */
export type Command = (args: string[], ctx: CommandContext) => Promise<number>;

/** A mistake in how the command was called: usage help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Writes a value as one line of JSON (NDJSON when called repeatedly). */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.output.out(JSON.stringify(value));
}
