/**
 * The server's logger. Callers pass only identifiers and reason codes: never a secret, a token,
 * a client secret, a push subscription's keys or an enrollment code.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * The line of one answered request (`msg: request`), at `info`. Its fields are a closed set of
   * identifiers and numbers, so a logger may write it without searching it for secrets (the
   * request log's cost is most of a cheap request's); without this method, `info('request', line)`.
   */
  request?(line: RequestLine): void;
}

/** The fields of a request's log line (`http/request-log.ts`): identifiers and numbers only. */
export interface RequestLine {
  request_id: string;
  method: string;
  /** The route's pattern, never the path with its ids. */
  route: string;
  status: number;
  duration_ms: number;
  client_id?: string;
}

/** One JSON line per entry on stdout/stderr. */
export const consoleLogger: Logger = {
  info: (message, fields) => console.log(JSON.stringify({ level: 'info', message, ...fields })),
  warn: (message, fields) => console.warn(JSON.stringify({ level: 'warn', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
};

/** Drops everything; for tests. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
