import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The command line of `pnpm --silent mcp-gateway`. */
export interface CliArgs {
  /** The config file, absolute. */
  config: string;
  /** Serve Streamable HTTP on this port instead of stdio. */
  http?: number;
}

/** The one-line usage, printed with every command-line error. */
export const USAGE = 'usage: pnpm --silent mcp-gateway --config FILE [--http PORT]';

/**
 * Reads `--config FILE [--http PORT]`. A relative FILE is taken from where the command was typed:
 * `INIT_CWD`, which pnpm sets, since pnpm runs the script from the repository root.
 *
 * @throws Error with a one-line reason and {@link USAGE} for anything else.
 */
export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { config: { type: 'string' }, http: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`);
  }
  if (!values.config) throw new Error(`--config FILE is required\n${USAGE}`);
  const config = isAbsolute(values.config) ? values.config : resolve(env.INIT_CWD ?? process.cwd(), values.config);
  if (values.http === undefined) return { config };
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--http must be a port from 1 to 65535, not ${JSON.stringify(values.http)}\n${USAGE}`);
  return { config, http: port };
}
