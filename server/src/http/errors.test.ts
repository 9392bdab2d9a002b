import { authorizationDetails, CountersignError, createClientBody } from '@countersign/shared';
import { Hono } from 'hono';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createPinoLogger, type Logger } from '../runtime/index.ts';
import { StoreUnavailableError } from '../store/index.ts';
import { describeIssue, errorHandler } from './errors.ts';

/** An app whose one route throws `error`, answered through the error handler; logs are kept. */
async function answerTo(error: Error) {
  const logged: string[] = [];
  const log: Logger = { info() {}, warn: (message) => void logged.push(`warn ${message}`), error: (message) => void logged.push(`error ${message}`) };
  const app = new Hono();
  app.onError(errorHandler(log));
  app.get('/', () => {
    throw error;
  });
  const response = await app.request('/');
  return { status: response.status, body: (await response.json()) as { error: string; error_description: string }, headers: response.headers, logged };
}

/** ioredis' errors as it raises them: plain Errors with a message or a name, ReplyErrors for Redis' answers. */
const named = (name: string, message = name) => Object.assign(new Error(message), { name });
const socket = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });

describe('errorHandler and a Redis in trouble', () => {
  it('answers a command timeout with 503, Retry-After, and an outcome it does not claim to know', async () => {
    const { status, body, headers, logged } = await answerTo(new Error('Command timed out'));
    expect(status).toBe(503);
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toMatch(/unknown/);
    expect(headers.get('retry-after')).toBe('2');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(logged).toEqual(['warn store unavailable']);
  });

  it.each([
    ['a command given up after the reconnection attempts', named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 2).')],
    ['a closed connection', new Error('Connection is closed.')],
    ['a cluster without a slot map', new Error("Cluster isn't ready and enableOfflineQueue options is false")],
    ['a cluster no node of which answers', named('ClusterAllFailedError', 'Failed to refresh slots cache.')],
    ['a refused connection', socket('ECONNREFUSED')],
    ['a Redis loading its data', new ReplyError('LOADING Redis is loading the dataset in memory')],
    ['a cluster that is down', new ReplyError('CLUSTERDOWN The cluster is down')],
    ['a slot being moved', new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot')],
    ['a busy script', new ReplyError('BUSY Redis is busy running a script.')],
    ['a stale slot map', new ReplyError('MOVED 3999 127.0.0.1:7001')],
    ['a slot in migration', new ReplyError('ASK 3999 127.0.0.1:7001')],
    ['a script the node has not cached', new ReplyError('NOSCRIPT No matching script. Please use EVAL.')],
    ['a demoted master', new ReplyError("READONLY You can't write against a read only replica.")],
    ['a replica without its master', new ReplyError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")],
    ['a store call given up (the store’s own verdict)', new StoreUnavailableError('unavailable', new ReplyError('MOVED 1 127.0.0.1:7001'))],
  ])('answers %s with 503 temporarily_unavailable', async (_, error) => {
    const { status, body, headers } = await answerTo(error);
    expect([status, body.error, headers.get('retry-after')]).toEqual([503, 'temporarily_unavailable', '2']);
    expect(body.error_description).not.toMatch(/unknown/);
  });

  it('looks through a wrapping error to the Redis failure that caused it', async () => {
    const wrapped = new CountersignError('server_error', 'could not save', { cause: new Error('Command timed out') });
    expect((await answerTo(wrapped)).status).toBe(503);
    expect((await answerTo(new Error('save failed', { cause: socket('ECONNRESET') }))).status).toBe(503);
  });

  it('answers a write the store reports as possibly applied as an unknown outcome', async () => {
    const { status, body, headers } = await answerTo(new StoreUnavailableError('timeout', new Error('Connection is closed.')));
    expect([status, body.error, headers.get('retry-after')]).toEqual([503, 'temporarily_unavailable', '2']);
    expect(body.error_description).toMatch(/unknown/);
  });

  it('keeps a refusal a refusal, whatever caused it', async () => {
    const refusal = new CountersignError('invalid_assertion', 'The passkey could not be verified.', { cause: new Error('Command timed out') });
    expect(await answerTo(refusal)).toMatchObject({ status: 400, body: { error: 'invalid_assertion' } });
  });

  it.each([
    ['CROSSSLOT', new ReplyError("CROSSSLOT Keys in request don't hash to the same slot")],
    ['a script error', new ReplyError('ERR user_script:3: Script attempted to access nonexistent global variable')],
    ['WRONGTYPE', new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['an ordinary bug', new TypeError("Cannot read properties of undefined (reading 'state')")],
  ])('keeps %s a 500 server_error without detail: a bug is not retried as if it would pass', async (_, error) => {
    const { status, body, headers, logged } = await answerTo(error);
    expect([status, body]).toEqual([500, { error: 'server_error', error_description: 'The server could not complete the request.' }]);
    expect(headers.get('retry-after')).toBeNull();
    expect(logged).toEqual(['error unhandled error']);
  });
});

describe('describeIssue, for what a newcomer sends', () => {
  const payment = { type: 'payment', transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' };
  /** The description of `authorization_details` = [payment with `changes`], as /bc-authorize words it. */
  const described = (changes: Record<string, unknown>) => {
    const action: Record<string, unknown> = { ...payment, ...changes };
    for (const [name, value] of Object.entries(action)) if (value === undefined) delete action[name];
    const parsed = authorizationDetails.safeParse([action]);
    if (parsed.success) throw new Error('the action was accepted');
    return describeIssue(parsed.error, 'authorization_details', [action]);
  };

  it('names a required member that was sent under another name, and the name that is not one', () => {
    expect(described({ amount_minor: undefined, amount: 49000 })).toBe('authorization_details[0].amount_minor is required (minor units, an integer); `amount` is not a member of payment');
    expect(described({ amount_minor: undefined })).toBe('authorization_details[0].amount_minor is required (minor units, an integer)');
    expect(described({ purpose: undefined, reason: 'Refund' })).toBe('authorization_details[0].purpose is required; `reason` is not a member of payment');
  });

  it('names unknown members alone, and in a nested object without a type', () => {
    expect(described({ memo: 'x' })).toBe('authorization_details[0]: `memo` is not a member of payment');
    expect(described({ memo: 'x', note: 'y' })).toBe('authorization_details[0]: `memo`, `note` are not members of payment');
    expect(described({ payee: { name: 'ACME Ltd', account: 'acct_77' } })).toBe('authorization_details[0].payee.id is required; `account` is not a known member of authorization_details[0].payee');
    expect(described({ [`m${'x'.repeat(4999)}`]: 'x' })).toBe(`authorization_details[0]: \`m${'x'.repeat(63)}\` is not a member of payment`);
  });

  it('says a currency in the wrong case must be upper-case ISO 4217, and refuses it still', () => {
    expect(described({ currency: 'eur' })).toBe('authorization_details[0].currency: must be an upper-case ISO 4217 code: EUR');
    expect(described({ currency: 'XXX' })).toBe('authorization_details[0].currency: must be an ISO 4217 currency code');
  });

  it('says what amount_minor is when it has the wrong type or a fraction', () => {
    expect(described({ amount_minor: '49000' })).toBe('authorization_details[0].amount_minor: must be a JSON number (minor units, an integer)');
    expect(described({ amount_minor: 490.5 })).toBe('authorization_details[0].amount_minor: must be a whole number of minor units');
  });

  it('words a JSON body the same way, without a prefix', () => {
    const body = { nam: 'Agent D' };
    const parsed = createClientBody.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(describeIssue(parsed.error!, '', body)).toBe('name is required; `nam` is not a known member');
  });
});

describe('errorHandler and the log of an unexposed error', () => {
  it("keeps the error's reason code in its log line (as error_code: `code` is a redacted member, for enrollment codes)", async () => {
    const caught: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => void (caught.push(String(chunk)), done()) });
    const app = new Hono();
    app.onError(errorHandler(await createPinoLogger({ destination: sink })));
    app.get('/', () => {
      throw new CountersignError('temporarily_unavailable', 'This device is being changed by another call. Try again.');
    });
    expect((await app.request('/')).status).toBe(503);
    expect(JSON.parse(caught.join(''))).toMatchObject({ msg: 'internal error', error_code: 'temporarily_unavailable' });
  });
});
