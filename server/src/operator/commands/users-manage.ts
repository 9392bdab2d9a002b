import { writeFile } from 'node:fs/promises';
import { parseOptions } from '../parse-options.ts';
import { nextPageNote, printJson, segment, tenantQuery, UsageError, type Command } from '../command.ts';
import { keyValueLines, tableLines } from '../output.ts';

/** A user as the admin API lists it (`UserView`). */
interface UserView {
  sub: string;
  tenant: string;
  display_name: string;
  roles: string[];
  created_at: string;
}

/**
 * `users list [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]`: the tenant's users by
 * sub: `sub, display name, roles (space-separated), created`.
 */
export const usersList: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { q: { type: 'string' }, cursor: { type: 'string' }, limit: { type: 'string' }, tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const { body } = await ctx.api.call<{ users: UserView[]; next_cursor: string | null }>('GET', `/users${tenantQuery(values.tenant, { q: values.q, cursor: values.cursor, limit: values.limit })}`);
  if (ctx.json) printJson(ctx, body);
  else if (body.users.length === 0) ctx.output.err('No users.');
  else {
    const rows = body.users.map((user) => [user.sub, user.display_name, user.roles.join(' '), user.created_at]);
    for (const line of tableLines(['SUB', 'NAME', 'ROLES', 'CREATED'], rows, ctx.output.tty)) ctx.output.out(line);
  }
  nextPageNote(ctx, body.next_cursor);
  return 0;
};

/**
 * `user roles <sub> <role>… [--tenant <t>]`, or `user roles <sub> --none`: replaces the user's
 * roles (`reviewer:finance`…); `--none` takes them all away (no roles named is a mistake, not a clear).
 */
export const userRoles: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' }, none: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [sub, ...roles] = positionals;
  if (!sub) throw new UsageError('user roles needs a <sub>');
  if (roles.length === 0 && !values.none) throw new UsageError('user roles needs the roles to set, or --none to take them all away');
  if (roles.length > 0 && values.none) throw new UsageError('user roles takes roles or --none, not both');
  const { body } = await ctx.api.call<UserView>('PUT', `/users/${segment(sub)}/roles`, { roles, ...(values.tenant ? { tenant: values.tenant } : {}) });
  if (ctx.json) printJson(ctx, body);
  else
    for (const line of keyValueLines(
      [
        ['sub', body.sub],
        ['roles', body.roles.join(' ')],
      ],
      ctx.output.tty,
    ))
      ctx.output.out(line);
  if (body.roles.length === 0) ctx.output.err(`${body.sub} has no roles now.`);
  return 0;
};

/** `user show <sub> [--tenant <t>]`: the user, their roles and the clients they blocked. */
export const userShow: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('user show needs exactly one <sub>');
  const { body } = await ctx.api.call<{ user: UserView; blocks: Array<{ client_id: string; auth_req_id: string }> }>('GET', `/users/${segment(sub)}${tenantQuery(values.tenant)}`);
  if (ctx.json) {
    printJson(ctx, body);
    return 0;
  }
  const entries: Array<[string, string]> = [['sub', body.user.sub], ['display_name', body.user.display_name], ['roles', body.user.roles.join(' ')], ...body.blocks.map((block): [string, string] => ['blocked', block.client_id])];
  for (const line of keyValueLines(entries, ctx.output.tty)) ctx.output.out(line);
  return 0;
};

/** `user unblock <sub> <client_id> [--tenant <t>]`: clears a block the user set with "this wasn't me". */
export const userUnblock: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' } }, allowPositionals: true, strict: true }, { idPositionals: true });
  const [sub, clientId, ...extra] = positionals;
  if (!sub || !clientId || extra.length > 0) throw new UsageError('user unblock needs a <sub> and a <client_id>');
  await ctx.api.call('DELETE', `/users/${segment(sub)}/blocks/${segment(clientId)}${tenantQuery(values.tenant)}`);
  if (ctx.json) printJson(ctx, { sub, client_id: clientId, unblocked: true });
  ctx.output.err(`${clientId} may ask ${sub} again.`);
  return 0;
};

/**
 * `user export <sub> [--output <file>] [--tenant <t>]`: everything the server holds about the
 * user, as JSON, on stdout or into `<file>` (written new: an existing file is not overwritten).
 */
export const userExport: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' }, output: { type: 'string', short: 'o' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('user export needs exactly one <sub>');
  const { body } = await ctx.api.call<unknown>('GET', `/users/${segment(sub)}/export${tenantQuery(values.tenant)}`);
  const json = JSON.stringify(body, null, 2);
  if (!values.output) {
    ctx.output.out(json);
    return 0;
  }
  try {
    await writeFile(values.output, `${json}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    ctx.output.err(`error: can't write ${values.output}: ${(error as Error).message}`);
    return 1;
  }
  ctx.output.err(`Wrote ${sub}'s data to ${values.output}.`);
  return 0;
};
