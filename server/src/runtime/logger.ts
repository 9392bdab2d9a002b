/**
 * The server's logger. Callers pass only identifiers and reason codes: never a secret, a token,
 * a client secret, a push subscription's keys or an enrollment code.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** One JSON line per entry on stdout/stderr. */
export const consoleLogger: Logger = {
  info: (message, fields) => console.log(JSON.stringify({ level: 'info', message, ...fields })),
  warn: (message, fields) => console.warn(JSON.stringify({ level: 'warn', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
};

/** Drops everything; for tests. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
