import { parseOptions } from '../parse-options.ts';
import { nextPageNote, printJson, segment, tenantQuery, UsageError, type Command, type CommandContext } from '../command.ts';
import { keyValueLines, tableLines } from '../output.ts';

/** A client as the admin API shows it (`ClientView`). */
interface ClientView {
  client_id: string;
  tenant: string;
  name: string;
  token_delivery_mode: string;
  created_at: string;
  disabled: boolean;
  disabled_at: string | null;
}

const LIST_OPTIONS = { q: { type: 'string' }, cursor: { type: 'string' }, limit: { type: 'string' }, tenant: { type: 'string' } } as const;

/**
 * `clients list [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]`: the tenant's clients by
 * id: `client_id, name, mode, status (active|disabled), created`. A next page's `--cursor` is
 * named on stderr.
 */
export const clientsList: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: LIST_OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const { body } = await ctx.api.call<{ clients: ClientView[]; next_cursor: string | null }>('GET', `/clients${tenantQuery(values.tenant, { q: values.q, cursor: values.cursor, limit: values.limit })}`);
  if (ctx.json) printJson(ctx, body);
  else if (body.clients.length === 0) ctx.output.err('No clients.');
  else {
    const rows = body.clients.map((client) => [client.client_id, client.name, client.token_delivery_mode, client.disabled ? 'disabled' : 'active', client.created_at]);
    for (const line of tableLines(['CLIENT_ID', 'NAME', 'MODE', 'STATUS', 'CREATED'], rows, ctx.output.tty)) ctx.output.out(line);
  }
  nextPageNote(ctx, body.next_cursor);
  return 0;
};

/** The one `<client_id>` and `--tenant` of a client command. */
function clientArgs(name: string, args: string[]): { clientId: string; tenant: string | undefined } {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' } }, allowPositionals: true, strict: true }, { idPositionals: true });
  const [clientId, ...extra] = positionals;
  if (!clientId || extra.length > 0) throw new UsageError(`client ${name} needs exactly one <client_id>`);
  return { clientId, tenant: values.tenant };
}

function printClient(ctx: CommandContext, client: ClientView & { client_secret?: string }): void {
  if (ctx.json) {
    printJson(ctx, client);
    return;
  }
  const entries: Array<[string, string | null]> = [
    ['client_id', client.client_id],
    ['client_secret', client.client_secret ?? null],
    ['name', client.name],
    ['tenant', client.tenant],
    ['status', client.disabled ? 'disabled' : 'active'],
    ['disabled_at', client.disabled_at],
  ];
  for (const line of keyValueLines(entries, ctx.output.tty)) ctx.output.out(line);
}

/**
 * `client disable <client_id>` / `client enable <client_id>` `[--tenant <t>]`: a disabled client's
 * calls are refused `invalid_client` until it is enabled again; its pending requests stay.
 */
export function clientSetDisabled(disabled: boolean): Command {
  return async (args, ctx) => {
    const { clientId, tenant } = clientArgs(disabled ? 'disable' : 'enable', args);
    const { body } = await ctx.api.call<ClientView>('POST', `/clients/${segment(clientId)}/${disabled ? 'disable' : 'enable'}${tenantQuery(tenant)}`);
    printClient(ctx, body);
    ctx.output.err(disabled ? `${body.client_id} is disabled: its calls are refused until "client enable".` : `${body.client_id} is enabled.`);
    return 0;
  };
}

/**
 * `client rotate-secret <client_id> [--tenant <t>]`: a new secret, printed once; the old one
 * stops working.
 */
export const clientRotateSecret: Command = async (args, ctx) => {
  const { clientId, tenant } = clientArgs('rotate-secret', args);
  const { body } = await ctx.api.call<ClientView & { client_secret: string }>('POST', `/clients/${segment(clientId)}/secret${tenantQuery(tenant)}`);
  printClient(ctx, body);
  ctx.output.err('Store the new client secret now: it is shown only this once, and the old one no longer works.');
  return 0;
};

/** `client delete <client_id> [--tenant <t>]`: the client is gone; its credentials are refused. */
export const clientDelete: Command = async (args, ctx) => {
  const { clientId, tenant } = clientArgs('delete', args);
  await ctx.api.call('DELETE', `/clients/${segment(clientId)}${tenantQuery(tenant)}`);
  if (ctx.json) printJson(ctx, { client_id: clientId, deleted: true });
  ctx.output.err(`Deleted ${clientId}.`);
  return 0;
};
