import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { Logger } from '../runtime/index.ts';
import { redisFailureOf, type RedisFailure } from '../store/index.ts';
import { formatJsonPath } from './strict-json.ts';

/** The value at `path` inside `input`, or undefined where the path leaves it. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const step of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[step];
  }
  return value;
}

/** Whether `path` names a member its parent object in `input` does not have (a required member left out). */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(input, path.slice(0, -1));
  return typeof parent === 'object' && parent !== null && !Array.isArray(parent) && !Object.hasOwn(parent, path[path.length - 1]!);
}

/** The action type an object names (`payment`), to say whose member an unknown one is not. */
function typeOf(input: unknown, path: readonly PropertyKey[]): string | undefined {
  const type = (valueAt(input, path) as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && /^[a-z_]{1,32}$/.test(type) ? type : undefined;
}

/** "`amount` is not a member of payment": the unknown names, cut to 64 characters each, never their values. */
function unknownMembers(keys: readonly string[], input: unknown, path: readonly PropertyKey[], where?: string): string {
  const names =
    keys
      .slice(0, 3)
      .map((key) => `\`${key.slice(0, 64)}\``)
      .join(', ') + (keys.length > 3 ? ` and ${keys.length - 3} more` : '');
  const type = typeOf(input, path);
  const members = keys.length === 1 ? 'is not a member' : 'are not members';
  return type ? `${names} ${members} of ${type}` : `${names} ${members.replace('member', 'known member')}${where ? ` of ${where}` : ''}`;
}

/** The path of an issue as JSON paths read (`authorization_details[0].amount_minor`). */
function pathOf(path: readonly PropertyKey[], prefix: string): string {
  return formatJsonPath(
    path.map((step) => (typeof step === 'symbol' ? String(step) : step)),
    prefix,
  );
}

/**
 * A one-line description of the first zod issue, naming the field but never echoing its value.
 * With the `input` that was parsed, a member left out reads `authorization_details[0].amount_minor
 * is required` (with what it is, when the schema says so in an `is required …` message), and one
 * sent in its place under another name (`amount`), which zod reports as a separate issue, is named
 * next to it: `; \`amount\` is not a member of payment`. Unknown members alone read the same way.
 */
export function describeIssue(error: z.ZodError, prefix = '', input?: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const path = pathOf(issue.path, prefix);
  if (issue.code === 'unrecognized_keys') {
    const members = unknownMembers(issue.keys, input, issue.path);
    return path ? `${path}: ${members}` : members;
  }
  if (issue.code === 'invalid_type' && isMissing(input, issue.path)) {
    const required = `${path} ${issue.message.startsWith('is required') ? issue.message : 'is required'}`;
    // zod reports a strict object's unknown members after its other issues: name them with the missing one.
    const parent = issue.path.slice(0, -1);
    const unknown = error.issues.find((other) => other.code === 'unrecognized_keys' && other.path.length === parent.length && other.path.every((step, at) => step === parent[at]));
    return unknown?.code === 'unrecognized_keys' ? `${required}; ${unknownMembers(unknown.keys, input, parent, pathOf(parent, prefix))}` : required;
  }
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** The longest `error_description` sent: a refusal names the field, it never replays the input. */
const MAX_DESCRIPTION = 200;

/**
 * An `error_description` as RFC 6749 §5.2 allows it (printable ASCII without `"` and `\`), cut to
 * {@link MAX_DESCRIPTION}: descriptions can quote what the caller sent (an unknown field's name),
 * and must not carry it back at length or with characters a client's log or UI would act on.
 */
export function oauthDescription(description: string): string {
  const safe = description.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
  return safe.length > MAX_DESCRIPTION ? `${safe.slice(0, MAX_DESCRIPTION - 3)}...` : safe;
}

/** Seconds a client is asked to wait after a 503 before it retries. */
export const STORE_RETRY_AFTER_SECONDS = 2;

const UNAVAILABLE_DESCRIPTIONS: Record<RedisFailure, string> = {
  // The command may still run (a paused Redis runs it when it resumes): never claim either way.
  timeout: 'The store did not answer in time; whether this request took effect is unknown. Retry it: a retry reads the outcome.',
  unavailable: 'The store is not reachable. Retry later.',
};

/**
 * The answer when Redis is slow or unreachable: 503 `temporarily_unavailable` with `Retry-After`
 * (RFC 9110 §10.2.3), never a 500 and never a guess. A timed-out state change is reported as
 * unknown, not as done and not as refused: an executor that retries a redeem gets the stored
 * truth (`already_redeemed` when the first attempt did take effect).
 *
 * @see RFC 6749 §5.2, CIBA Core 1.0 §13 (`temporarily_unavailable`)
 */
export function storeUnavailable(c: Context, failure: RedisFailure): Response {
  return c.json({ error: 'temporarily_unavailable', error_description: UNAVAILABLE_DESCRIPTIONS[failure] }, 503, {
    'Cache-Control': 'no-store',
    'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
  });
}

/**
 * The one place that turns errors into responses (node-oidc-provider style): a
 * {@link CountersignError} becomes its OAuth body `{error, error_description}` and status; a
 * Redis that is slow or unreachable becomes 503 `temporarily_unavailable` with `Retry-After`
 * ({@link storeUnavailable}); hono's own exceptions (e.g. the body limit) keep their status with an
 * OAuth body; anything else is logged and answered as a bare `server_error`, with no stack trace
 * and no detail. Every description passes through {@link oauthDescription}.
 */
export function errorHandler(log: Logger) {
  return function onError(error: Error, c: Context): Response {
    // Before the CountersignError case: an unexposed one (500) may carry a Redis failure as its cause.
    const failure = error instanceof CountersignError && error.expose ? null : redisFailureOf(error);
    if (failure) {
      log.warn('store unavailable', { path: c.req.path, failure, error: error.message });
      return storeUnavailable(c, failure);
    }
    if (error instanceof CountersignError) {
      if (!error.expose) log.error('internal error', { error_code: error.code, error: String(error.cause ?? error.message) });
      const body = error.toJSON();
      return c.json({ ...body, error_description: oauthDescription(String(body.error_description)) }, error.status as ContentfulStatusCode, { 'Cache-Control': 'no-store', ...error.headers });
    }
    // A middleware that built its own answer (bearerAuth: OAuth body and WWW-Authenticate) keeps it.
    if (error instanceof HTTPException && error.status < 500 && error.res) {
      const response = error.getResponse();
      response.headers.set('Cache-Control', 'no-store');
      return response;
    }
    if (error instanceof HTTPException && error.status < 500) {
      const code = error.status === 413 ? 'request_too_large' : 'invalid_request';
      const description = error.status === 413 ? 'The request body is too large.' : oauthDescription(error.message || 'The request is malformed.');
      return c.json({ error: code, error_description: description }, error.status, { 'Cache-Control': 'no-store' });
    }
    log.error('unhandled error', { path: c.req.path, error: String(error) });
    return c.json({ error: 'server_error', error_description: 'The server could not complete the request.' }, 500, {
      'Cache-Control': 'no-store',
    });
  };
}

/** 404 for unknown paths, with an OAuth-style body. */
export function notFound(c: Context): Response {
  return c.json({ error: 'not_found', error_description: 'No such resource.' }, 404);
}

/** Shorthand for a refusal: `throw refuse('invalid_request', '…')`. */
export function refuse(code: ConstructorParameters<typeof CountersignError>[0], description: string, options?: ConstructorParameters<typeof CountersignError>[2]): CountersignError {
  return new CountersignError(code, description, options);
}
