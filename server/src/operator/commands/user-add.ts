import { parseArgs } from 'node:util';
import { printJson, UsageError, type Command } from '../command.ts';
import { keyValueLines } from '../output.ts';

interface UserRecord {
  sub: string;
  tenant: string;
  display_name?: string | null;
}

/**
 * `user add <sub> [--name <display name>] [--tenant <t>]`: adds a user (the `sub` agents send as
 * `login_hint`). Adding one that exists changes nothing and says so.
 */
export const userAdd: Command = async (args, ctx) => {
  const { values, positionals } = parseArgs({ args, options: { name: { type: 'string' }, tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('user add needs exactly one <sub>');
  const { status, body } = await ctx.api.call<UserRecord>('POST', '/users', {
    sub,
    ...(values.name ? { display_name: values.name } : {}),
    ...(values.tenant ? { tenant: values.tenant } : {}),
  });
  if (ctx.json) printJson(ctx, body);
  else for (const line of keyValueLines([['sub', body.sub], ['tenant', body.tenant], ['display_name', body.display_name]], ctx.output.tty)) ctx.output.out(line);
  ctx.output.err(status === 201 ? `Added ${body.sub}.` : `${body.sub} already existed; nothing changed.`);
  return 0;
};
