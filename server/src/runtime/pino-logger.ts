import { pino, type DestinationStream, type LevelWithSilent } from 'pino';
import type { Logger } from './logger.ts';

/**
 * The members that may hold a secret wherever they appear in a log line's fields, at the top or
 * one object down: bearer and approval tokens, client secrets and assertions, cookies and
 * `Authorization` headers, WebAuthn responses (assertions, signatures), push subscriptions' keys,
 * CIBA's `client_notification_token`, enrollment codes. Callers already pass only identifiers and
 * reason codes (`Logger`); this is the second line, for the field someone adds tomorrow.
 */
const SECRET_MEMBERS = ['token', 'access_token', 'refresh_token', 'id_token', 'client_secret', 'client_assertion', 'assertion', 'authorization', 'cookie', 'set-cookie', 'password', 'secret', 'response', 'signature', 'keys', 'p256dh', 'auth', 'client_notification_token', 'enrollment_code', 'code', 'admin_token'];

/** pino redaction paths for {@link SECRET_MEMBERS}: `member`, `*.member`, and under `headers`. */
export const REDACTED_PATHS: string[] = [...SECRET_MEMBERS.flatMap((member) => [`["${member}"]`, `*["${member}"]`]), 'headers["authorization"]', 'headers["cookie"]', '*.headers["authorization"]', '*.headers["cookie"]'];

/** Options of {@link createPinoLogger}. */
export interface PinoLoggerOptions {
  /** Where lines go: stdout by default; a stream of the test's own to read them back. */
  destination?: DestinationStream;
  /** `info` by default; `LOG_LEVEL`. */
  level?: LevelWithSilent;
  /** Human-readable lines (pino-pretty) instead of JSON: for a developer's terminal. */
  pretty?: boolean;
}

/**
 * The server's {@link Logger} on pino: one JSON line per entry (`level`, `time`, `msg` and the
 * entry's fields), with {@link REDACTED_PATHS} replaced by `[redacted]`. With `pretty`, lines go
 * through pino-pretty, loaded only then (a development dependency: a production install has none, and
 * then gets JSON lines).
 *
 * Two costs of a cheap request's line are kept off it (measured in docs/performance.md):
 * - Redaction: the request line ({@link Logger.request}: identifiers and numbers only) goes
 *   through a second pino on the same destination, without redaction paths, which search every
 *   line's members.
 * - The write: to stdout, lines are written asynchronously (pino's `sync: false`): under load the
 *   lines waiting for one write go out together, at low load each line as it comes. Lines not yet
 *   written are flushed when the process exits; a hard kill loses them (the audit trail is in the
 *   store, not in the log).
 *
 * @see https://getpino.io (redaction: `redact.paths`, `censor`; asynchronous logging: `pino.destination`)
 */
export async function createPinoLogger(options: PinoLoggerOptions = {}): Promise<Logger> {
  let destination = options.destination;
  if (options.pretty && !destination) {
    // A deployed folder (`pnpm deploy --prod`) has no pino-pretty: run from a terminal without
    // NODE_ENV=production it writes JSON lines rather than failing to start.
    const loaded = await import('pino-pretty').catch(() => null);
    if (loaded) destination = loaded.default({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
  }
  if (!destination) {
    const stdout = pino.destination({ dest: 1, sync: false });
    process.once('exit', () => {
      try {
        stdout.flushSync();
      } catch {
        // Not open yet, or closed: nothing is waiting to be written.
      }
    });
    destination = stdout;
  }
  const level = options.level ?? 'info';
  const logger = pino({ level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
  const lines = pino({ level, base: undefined }, destination);
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
    request: (line) => lines.info(line, 'request'),
  };
}
