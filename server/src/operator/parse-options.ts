import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * node:util `parseArgs`, except that a string option always takes the argument after it as its
 * value, even one that starts with `-`.
 *
 * Why: an `auth_req_id` is base64url, so one in 64 starts with `-`. Plain `parseArgs` refuses
 * `--auth-req-id -Xy3…` as ambiguous (`ERR_PARSE_ARGS_INVALID_OPTION_VALUE`), and an operator
 * pasting an id they were given would get usage help instead of the request. The argument after a
 * string option is taken as its value unless it is itself one of the command's options (`--json`,
 * `--tenant`, `--tenant=x`): `--tenant --json` is still a missing value, not a tenant named `--json`.
 *
 * With `idPositionals`, for a command that takes an id as a positional argument and has no short
 * options, an argument that starts with a single `-` is a positional (an id), not a cluster of
 * short options.
 *
 * @param config the same configuration `parseArgs` takes; `args` is required.
 * @returns what `parseArgs` returns for it.
 * @throws what `parseArgs` throws (codes `ERR_PARSE_ARGS_*`), a usage mistake.
 */
export function parseOptions<T extends ParseArgsConfig & { args: string[] }>(config: T, { idPositionals = false } = {}): ReturnType<typeof parseArgs<T>> {
  let args = attachValues(config.args, config.options ?? {});
  if (idPositionals && !args.includes('--')) {
    const ids = args.filter((arg) => /^-[^-]/.test(arg));
    if (ids.length > 0) args = [...args.filter((arg) => !ids.includes(arg)), '--', ...ids];
  }
  return parseArgs<T>({ ...config, args });
}

/** Rewrites `--name value` to `--name=value` for the string options of `options`. */
function attachValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  const isOption = (arg: string) => {
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : null;
    if (name !== null) return Object.hasOwn(options, name);
    return arg.length === 2 && Object.values(options).some((option) => option.short === arg[1]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    const next = args[i + 1];
    if (name !== null && options[name]?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '--' && !isOption(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}
