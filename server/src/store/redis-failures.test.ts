import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisFailureOf } from './redis-connect.ts';
import { mayRetry, outcomeUnknown, redisErrorKind, StoreUnavailableError, type RedisErrorKind } from './redis-failures.ts';

/** ioredis' errors as it raises them: ReplyErrors for Redis' answers, plain Errors with a message, a name or a socket code. */
const named = (name: string, message = name) => Object.assign(new Error(message), { name });
const socket = (code: string) => Object.assign(new Error(`read ${code}`), { code });

/**
 * The mapping table of docs/reliability.md "Redis errors and deadlines", one row per error class:
 * the error, its kind, whether a read and a write are sent again, and what a write that is not
 * retried answers (`unavailable`: it did not run; `timeout`: it may have run, the outcome is unknown).
 */
const TABLE: [string, Error, RedisErrorKind, boolean, boolean, 'unavailable' | 'timeout'][] = [
  ['MOVED', new ReplyError('MOVED 3999 127.0.0.1:7001'), 'moved', true, true, 'unavailable'],
  ['ASK', new ReplyError('ASK 3999 127.0.0.1:7001'), 'ask', true, true, 'unavailable'],
  ['NOSCRIPT', new ReplyError('NOSCRIPT No matching script. Please use EVAL.'), 'noscript', true, true, 'unavailable'],
  ['TRYAGAIN', new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot'), 'not_now', true, true, 'unavailable'],
  ['CLUSTERDOWN', new ReplyError('CLUSTERDOWN The cluster is down'), 'not_now', true, true, 'unavailable'],
  ['LOADING', new ReplyError('LOADING Redis is loading the dataset in memory'), 'not_now', true, true, 'unavailable'],
  ['BUSY', new ReplyError('BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'), 'not_now', true, true, 'unavailable'],
  ['MASTERDOWN', new ReplyError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), 'not_now', true, true, 'unavailable'],
  ['READONLY', new ReplyError("READONLY You can't write against a read only replica."), 'not_now', true, true, 'unavailable'],
  ['NOREPLICAS', new ReplyError('NOREPLICAS Not enough good replicas to write.'), 'refused', false, false, 'unavailable'],
  ['MISCONF', new ReplyError('MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.'), 'refused', false, false, 'unavailable'],
  ['ECONNREFUSED', socket('ECONNREFUSED'), 'not_sent', true, true, 'unavailable'],
  ['an offline queue that is off', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'not_sent', true, true, 'unavailable'],
  ['a cluster without a slot map', new Error("Cluster isn't ready and enableOfflineQueue options is false"), 'not_sent', true, true, 'unavailable'],
  ['no cluster node answering', named('ClusterAllFailedError', 'Failed to refresh slots cache.'), 'not_sent', true, true, 'unavailable'],
  ['too many redirections', new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 1 127.0.0.1:7002'), 'not_sent', true, true, 'unavailable'],
  ['a closed connection', new Error('Connection is closed.'), 'lost', true, false, 'timeout'],
  ['ECONNRESET', socket('ECONNRESET'), 'lost', true, false, 'timeout'],
  ['a command aborted by a connection close', named('AbortError', 'Command aborted due to connection close'), 'lost', true, false, 'timeout'],
  ['MaxRetriesPerRequest', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 2).'), 'lost', true, false, 'timeout'],
  ['a command timeout', new Error('Command timed out'), 'timeout', false, false, 'timeout'],
];

describe('Redis error mapping', () => {
  it.each(TABLE)('classifies %s, and retries a read (%#) only where it is safe', (_, error, kind, retryRead, retryWrite, failure) => {
    expect(redisErrorKind(error)).toBe(kind);
    expect([mayRetry(kind, true), mayRetry(kind, false)]).toEqual([retryRead, retryWrite]);
    expect(outcomeUnknown(kind) ? 'timeout' : 'unavailable').toBe(failure);
    // Whatever reaches the HTTP error handler unwrapped is a 503 too, never a 500.
    expect(redisFailureOf(error)).not.toBeNull();
  });

  it.each([
    ['CROSSSLOT', new ReplyError("CROSSSLOT Keys in request don't hash to the same slot")],
    ['WRONGTYPE', new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['a script error', new ReplyError('ERR user_script:1: Script attempted to access nonexistent global variable')],
    ['a MOVED-looking message that is not a reply', new Error('MOVED 1 127.0.0.1:7001')],
    ['a bug', new TypeError('x is undefined')],
  ])('leaves %s unclassified: a bug is neither retried nor hidden', (_, error) => {
    expect(redisErrorKind(error)).toBeNull();
    expect(redisFailureOf(error)).toBeNull();
  });

  it('lets the store’s own verdict decide: a write cut off by a closed connection is an unknown outcome', () => {
    const lost = new StoreUnavailableError('timeout', new Error('Connection is closed.'));
    expect([lost.code, lost.status, redisFailureOf(lost)]).toEqual(['temporarily_unavailable', 503, 'timeout']);
    expect(redisFailureOf(new StoreUnavailableError('unavailable', new ReplyError('MOVED 1 127.0.0.1:7001')))).toBe('unavailable');
  });
});
