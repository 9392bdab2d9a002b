import { parseOptions } from '../parse-options.ts';
import { nextPageNote, printJson, UsageError, type Command } from '../command.ts';
import { formatSeconds, tableLines } from '../output.ts';

interface PendingList {
  requests: Array<{ auth_req_id: string; sub: string; client_name: string; client_id: string; seconds_left: number; summary: string; binding_message: string | null }>;
  truncated: boolean;
  next_cursor?: string | null;
}

/**
 * `requests pending [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]`: the tenant's pending requests, soonest
 * deadline first: `auth_req_id, sub, client name, seconds left, binding message, summary`.
 */
export const requestsPending: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' }, limit: { type: 'string' }, q: { type: 'string' }, cursor: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const query = new URLSearchParams({ state: 'pending', ...(values.tenant ? { tenant: values.tenant } : {}), ...(values.limit ? { limit: values.limit } : {}), ...(values.q ? { q: values.q } : {}), ...(values.cursor ? { cursor: values.cursor } : {}) });
  const { body } = await ctx.api.call<PendingList>('GET', `/requests?${query}`);
  if (ctx.json) {
    printJson(ctx, body);
    return 0;
  }
  if (body.requests.length === 0) {
    ctx.output.err('No pending requests.');
    return 0;
  }
  const tty = ctx.output.tty;
  // Piped, the time left is whole seconds (a number to compare); on a terminal, minutes and seconds.
  const rows = body.requests.map((request) => [request.auth_req_id, request.sub, request.client_name, tty ? formatSeconds(request.seconds_left) : request.seconds_left, request.binding_message ?? '', request.summary]);
  for (const line of tableLines(['AUTH_REQ_ID', 'SUB', 'CLIENT', 'EXPIRES_IN', 'MESSAGE', 'SUMMARY'], rows, tty)) ctx.output.out(line);
  if (body.next_cursor) nextPageNote(ctx, body.next_cursor);
  else if (body.truncated) ctx.output.err('More pending requests exist than are listed; use --limit or --tenant.');
  return 0;
};
