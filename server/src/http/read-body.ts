import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { bodyTooLarge, MAX_BODY_BYTES } from './body-limit.ts';
import { describeIssue } from './errors.ts';
import { formatJsonPath, parseStrictJson, type InexactNumber } from './strict-json.ts';

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads a Node request's body, at most `maxBytes` of it: past that it stops reading (the adapter
 * drains or closes the rest once the answer is sent), so an endless chunked body is never buffered.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        incoming.pause();
        reject(bodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(new CountersignError('invalid_request', 'The request body could not be read.', { cause: error }));
    };
    const onClose = () => {
      done();
      reject(new CountersignError('invalid_request', 'The request body was cut short.'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
    if (incoming.destroyed) onClose();
  });
}

/**
 * The body's bytes, at most {@link MAX_BODY_BYTES}. Under @hono/node-server they are read straight
 * from the Node request (`c.env.incoming`); when there is none (`app.request()`), or something
 * already read the body through hono, through `c.req.arrayBuffer()`. Reads the body once.
 */
async function readBytes(c: Context): Promise<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead && Object.keys(c.req.bodyCache).length === 0) return readIncoming(incoming, MAX_BODY_BYTES);
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw bodyTooLarge();
  return bytes;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as text. Bytes that are not UTF-8 are refused, not replaced with U+FFFD: the text the
 * server validates and stores must be the text the caller sent (RFC 8259 §8.1).
 */
async function readUtf8(c: Context): Promise<string> {
  const bytes = await readBytes(c);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new CountersignError('invalid_request', 'The body is not valid UTF-8.');
  }
}

/** Decodes one form component ('+' is a space); `decodeURIComponent` refuses bad escapes and bad UTF-8. */
function formDecode(component: string): string {
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    throw new CountersignError('invalid_request', 'The form body is not valid application/x-www-form-urlencoded UTF-8.');
  }
}

/**
 * Reads an `application/x-www-form-urlencoded` body (the OAuth endpoints, RFC 6749 §4.1.3).
 *
 * Decoded strictly, not with `URLSearchParams`: that one keeps a malformed escape (`%zz`) as
 * literal text and turns bytes that are not UTF-8 (`%ff`) into U+FFFD, so a value would be
 * accepted that means something else to the client that sent it.
 *
 * @param options - `optional`: an empty body, whatever its content type, is a form with no parameters.
 * @returns each parameter once, as an object without a prototype (`__proto__`, `constructor` are parameters like any other).
 * @throws CountersignError `invalid_request` (415) for another content type (of a body that is not empty, with `optional`); `request_too_large`
 *   (413) for a body over {@link MAX_BODY_BYTES}; `invalid_request` (400) for a malformed escape,
 *   bytes that are not UTF-8, or a parameter given twice (RFC 6749 §3.1, "MUST NOT be included
 *   more than once").
 * @see WHATWG URL §5.1 (application/x-www-form-urlencoded parsing)
 */
export async function readForm(c: Context, options: { optional?: boolean } = {}): Promise<Record<string, string>> {
  // No prototype: on a plain object `form['__proto__'] = …` would set the prototype (dropping the
  // parameter, and letting a repeat of it through) instead of naming a parameter like any other.
  const form: Record<string, string> = Object.create(null);
  const isForm = mediaType(c) === 'application/x-www-form-urlencoded';
  if (!isForm && !options.optional) {
    throw new CountersignError('invalid_request', 'The body must be application/x-www-form-urlencoded.', { status: 415 });
  }
  const text = await readUtf8(c);
  if (!isForm) {
    // `optional`: a body-less POST (a client_secret_basic client has nothing to put in the form).
    if (text === '') return form;
    throw new CountersignError('invalid_request', 'The body must be application/x-www-form-urlencoded.', { status: 415 });
  }
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = formDecode(equals < 0 ? pair : pair.slice(0, equals));
    if (Object.hasOwn(form, name)) throw new CountersignError('invalid_request', `The parameter ${name} is repeated.`);
    form[name] = formDecode(equals < 0 ? '' : pair.slice(equals + 1));
  }
  return form;
}

/** A JSON body as {@link readJsonDocument} answers it. */
export interface JsonDocument<T> {
  /** The body, validated by the schema. */
  data: T;
  /** The numbers of the body's text not written as canonical integers (see `parseStrictJson`); usually none. */
  inexactNumbers: InexactNumber[];
  /** How deep the body's arrays and objects nest (`{}` is 1). */
  depth: number;
}

/**
 * Reads a JSON body and validates it with `schema`, and answers with it the numbers its text
 * spells in a way a parsed value cannot show (`49000.0`, `4.9e4`, `-0`): for `/redeem`, whose
 * action must be the approved one as written. Otherwise as {@link readJson}.
 * @throws CountersignError as {@link readJson}.
 */
export async function readJsonDocument<T extends z.ZodType>(c: Context, schema: T, options: { optional?: boolean } = {}): Promise<JsonDocument<z.infer<T>>> {
  const json = mediaType(c) === 'application/json';
  if (!json && !options.optional) {
    throw new CountersignError('invalid_request', 'The body must be application/json.', { status: 415 });
  }
  let text = await readUtf8(c);
  if (options.optional && text.trim() === '') text = '{}';
  else if (!json) throw new CountersignError('invalid_request', 'The body must be application/json.', { status: 415 });
  const read = parseStrictJson(text);
  if (!read.ok) {
    if (read.problem === 'syntax') throw new CountersignError('invalid_request', 'The body is not valid JSON.');
    throw new CountersignError('invalid_request', `The body names the member ${formatJsonPath(read.path)} twice: each name in an object must be unique.`);
  }
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) throw new CountersignError('invalid_request', describeIssue(parsed.error, '', read.value));
  return { data: parsed.data, inexactNumbers: read.inexactNumbers, depth: read.depth };
}

/**
 * Reads a JSON body and validates it with `schema`. With `optional`, an empty body (nothing but
 * white space, whatever its content type) stands for `{}`: for endpoints whose every member has a default.
 *
 * A member named twice in one object, at any depth, is refused: `JSON.parse` would keep the last
 * value where another reader of the same bytes (a proxy, a log, the caller's own parser) keeps
 * the first, and the server must act on the body as everyone reads it (see `parseStrictJson`).
 * @throws CountersignError `invalid_request` (415) for another content type; `request_too_large`
 *   (413) for a body over {@link MAX_BODY_BYTES}; `invalid_request` (400) for malformed
 *   JSON, a member named twice, bytes that are not UTF-8, or a body the schema refuses (unknown
 *   fields included: the schemas are strict).
 * @see RFC 8259 §4, RFC 7493 §2.3
 */
export async function readJson<T extends z.ZodType>(c: Context, schema: T, options: { optional?: boolean } = {}): Promise<z.infer<T>> {
  return (await readJsonDocument(c, schema, options)).data;
}
