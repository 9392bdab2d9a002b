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

/**
 * A path segment or query of a command's own arguments, percent-encoded: an id typed by the
 * operator never changes which route is called.
 */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** The `?tenant=…` query of a command's `--tenant`, or nothing. */
export function tenantQuery(tenant: string | undefined, extra: Record<string, string | undefined> = {}): string {
  const entries = Object.entries({ tenant, ...extra }).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries)}`;
}

/** Tells a person (stderr) how to ask for the next page of a list, when there is one. */
export function nextPageNote(ctx: CommandContext, nextCursor: string | null | undefined): void {
  if (nextCursor) ctx.output.err(`More results: run again with --cursor ${nextCursor}`);
}

/** Writes a value as one line of JSON (NDJSON when called repeatedly). */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.output.out(JSON.stringify(value));
}
