import { AdminApiError, createAdminApi } from './admin-api.ts';
import { UsageError, type Command } from './command.ts';
import { auditFollow } from './commands/audit-follow.ts';
import { clientCreate } from './commands/client-create.ts';
import { enroll } from './commands/enroll.ts';
import { requestsPending } from './commands/requests-pending.ts';
import { userAdd } from './commands/user-add.ts';
import { clientDelete, clientRotateSecret, clientSetDisabled, clientsList } from './commands/clients-manage.ts';
import { deviceRevoke, devicesList } from './commands/devices-manage.ts';
import { userExport, userRoles, userShow, userUnblock, usersList } from './commands/users-manage.ts';
import type { Output } from './output.ts';
import { USAGE } from './usage.ts';

export { USAGE } from './usage.ts';

/** The commands, by their words. */
const COMMANDS: Record<string, Command> = {
  'client create': clientCreate,
  'user add': userAdd,
  enroll,
  'requests pending': requestsPending,
  'audit follow': auditFollow,
  'clients list': clientsList,
  'client disable': clientSetDisabled(true),
  'client enable': clientSetDisabled(false),
  'client rotate-secret': clientRotateSecret,
  'client delete': clientDelete,
  'users list': usersList,
  'user show': userShow,
  'user roles': userRoles,
  'user unblock': userUnblock,
  'user export': userExport,
  'devices list': devicesList,
  'device revoke': deviceRevoke,
};

/** What {@link runCli} runs with: the process's, or a test's. */
export interface CliEnvironment {
  env: Record<string, string | undefined>;
  output: Output;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/**
 * Runs one command line of the operator's tool against a running server's admin API.
 *
 * @param argv The arguments after the program name: the command words, then its options.
 * @returns The exit code: 0 done, 1 the server refused or was not reached, 2 a usage mistake.
 */
export async function runCli(argv: string[], environment: CliEnvironment): Promise<number> {
  const { output } = environment;
  const json = argv.includes('--json');
  const args = argv.filter((arg) => arg !== '--json');
  if (args.length === 0 || args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
    (args.length === 0 ? output.err : output.out)(USAGE.trimEnd());
    return args.length === 0 ? 2 : 0;
  }
  const words = Object.keys(COMMANDS).find((name) => name.split(' ').every((word, i) => args[i] === word));
  if (!words) {
    output.err(`Unknown command: ${args.slice(0, 2).join(' ')}\n\n${USAGE.trimEnd()}`);
    return 2;
  }
  const token = environment.env.ADMIN_TOKEN;
  if (!token) {
    output.err("ADMIN_TOKEN is not set: export the server's admin token (it is printed when the server starts in development).");
    return 2;
  }
  const baseUrl = environment.env.COUNTERSIGN_URL || 'http://localhost:8080';
  if (!/^https?:\/\/[^/]+\/?$/.test(baseUrl)) {
    output.err(`COUNTERSIGN_URL must be the server's origin, like https://approve.example.com (got ${baseUrl}).`);
    return 2;
  }
  const controller = new AbortController();
  const signal = environment.signal ?? controller.signal;
  try {
    return await COMMANDS[words]!(args.slice(words.split(' ').length), {
      api: createAdminApi({ baseUrl, token, ...(environment.fetch ? { fetch: environment.fetch } : {}) }),
      output,
      json,
      signal,
      sleep: environment.sleep ?? ((ms) => abortableSleep(ms, signal)),
    });
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      output.err(`${(error as Error).message}\n\n${USAGE.trimEnd()}`);
      return 2;
    }
    if (error instanceof AdminApiError) {
      output.err(`error: ${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** node:util `parseArgs` refusals (unknown option, missing value) are usage mistakes. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
