import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import type { z } from 'zod';
import { describeIssue } from './errors.ts';

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as text. Bytes that are not UTF-8 are refused, not replaced with U+FFFD: the text the
 * server validates and stores must be the text the caller sent (RFC 8259 §8.1).
 */
async function readUtf8(c: Context): Promise<string> {
  const bytes = await c.req.arrayBuffer();
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
 * @returns each parameter once.
 * @throws CountersignError `invalid_request` (415) for another content type; `invalid_request`
 *   (400) for a malformed escape, bytes that are not UTF-8, or a parameter given twice
 *   (RFC 6749 §3.1, "MUST NOT be included more than once").
 * @see WHATWG URL §5.1 (application/x-www-form-urlencoded parsing)
 */
export async function readForm(c: Context): Promise<Record<string, string>> {
  if (mediaType(c) !== 'application/x-www-form-urlencoded') {
    throw new CountersignError('invalid_request', 'The body must be application/x-www-form-urlencoded.', { status: 415 });
  }
  const form: Record<string, string> = {};
  for (const pair of (await readUtf8(c)).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = formDecode(equals < 0 ? pair : pair.slice(0, equals));
    if (Object.hasOwn(form, name)) throw new CountersignError('invalid_request', `The parameter ${name} is repeated.`);
    form[name] = formDecode(equals < 0 ? '' : pair.slice(equals + 1));
  }
  return form;
}

/**
 * Reads a JSON body and validates it with `schema`.
 * @throws CountersignError `invalid_request` (415) for another content type, (400) for malformed
 *   JSON, bytes that are not UTF-8, or a body the schema refuses (unknown fields included: the schemas are strict).
 */
export async function readJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  if (mediaType(c) !== 'application/json') {
    throw new CountersignError('invalid_request', 'The body must be application/json.', { status: 415 });
  }
  const text = await readUtf8(c);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CountersignError('invalid_request', 'The body is not valid JSON.');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new CountersignError('invalid_request', describeIssue(parsed.error));
  return parsed.data;
}
