import { parseOptions } from '../parse-options.ts';
import { printJson, UsageError, type Command } from '../command.ts';
import { keyValueLines } from '../output.ts';

interface UserRecord {
  sub: string;
  tenant: string;
  display_name?: string | null;
}

/**
 * `user add <sub> [--name <display name>] [--tenant <t>]`: adds a user (the `sub` agents send as
 * `login_hint`). Adding one that exists changes nothing and says so; when `--name` asked for
 * another display name than the stored one, it says that name was not applied and exits 1.
 */
export const userAdd: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { name: { type: 'string' }, tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('user add needs exactly one <sub>');
  const { status, body } = await ctx.api.call<UserRecord>('POST', '/users', {
    sub,
    ...(values.name ? { display_name: values.name } : {}),
    ...(values.tenant ? { tenant: values.tenant } : {}),
  });
  if (ctx.json) printJson(ctx, body);
  else
    for (const line of keyValueLines(
      [
        ['sub', body.sub],
        ['tenant', body.tenant],
        ['display_name', body.display_name],
      ],
      ctx.output.tty,
    ))
      ctx.output.out(line);
  if (status === 201) {
    ctx.output.err(`Added ${body.sub}.`);
    return 0;
  }
  // The admin API never renames on add: a different --name is a request that was not carried out.
  if (values.name !== undefined && values.name !== (body.display_name ?? undefined)) {
    ctx.output.err(`${body.sub} already existed; nothing changed: its display name stays ${JSON.stringify(body.display_name ?? null)}, not ${JSON.stringify(values.name)}.`);
    return 1;
  }
  ctx.output.err(`${body.sub} already existed; nothing changed.`);
  return 0;
};
