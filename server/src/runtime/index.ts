export { Background } from './background.ts';
export { ManualClock, OffsetClock, secondsUntil, systemClock, type Clock } from './clock.ts';
export { equalInConstantTime, sha256Base64url } from './hashes.ts';
export { randomId, type IdGenerator } from './ids.ts';
export { intervalTicker, type Ticker } from './ticker.ts';
export { consoleLogger, silentLogger, type Logger, type RequestLine } from './logger.ts';
export { createPinoLogger, REDACTED_PATHS, type PinoLoggerOptions } from './pino-logger.ts';
