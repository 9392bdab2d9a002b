import { z } from 'zod';
import { canonicalize } from '../jcs/canonicalize.ts';

/** A JSON value as a tool takes it: what `JSON.parse` builds, no more. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A tool call's `arguments`: a JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * The most a tool call's `arguments` may take, in bytes of UTF-8 of their JCS text (docs/design.md
 * "Actions": "≤ 8 KB as JCS"): measured on the canonical form, so the limit does not depend on how
 * the gateway spaced or ordered its JSON, and it bounds what is hashed, stored and shown.
 */
export const MAX_TOOL_ARGUMENTS_BYTES = 8 * 1024;

/**
 * How deep `arguments` may nest: `{}` is 1, `{"a": [1]}` is 2. With the array and the action around
 * it the whole action stays well inside what `/redeem` hashes (32 levels), and the display, which
 * recurses once per level, stays small.
 */
export const MAX_TOOL_ARGUMENTS_DEPTH = 16;

/** A lone surrogate: under the `u` flag a pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** UTF-8 length of a well-formed string, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      // A surrogate pair (lone ones are refused before this is asked) is one 4-byte code point.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

type Path = (string | number)[];

/**
 * Why `value` is not JSON a tool may take, with where: a non-JSON value (from a JavaScript caller:
 * `undefined`, a function, a `Date`, NaN or Infinity), nesting past {@link MAX_TOOL_ARGUMENTS_DEPTH},
 * a string or member name that is not well-formed Unicode (a lone surrogate has no UTF-8 form, so
 * its hash would depend on who encodes it), or a member named `__proto__` (a plain object built
 * from it would lose the member and change the hash). Iterative: a deep input cannot overflow the stack.
 */
function jsonProblem(root: unknown): { path: Path; message: string } | null {
  const stack: { value: unknown; path: Path; depth: number }[] = [{ value: root, path: [], depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value === 'boolean') continue;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return { path, message: 'must be well-formed Unicode (it holds a lone surrogate)' };
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path, message: 'must be a finite number' };
      continue;
    }
    const isArray = Array.isArray(value);
    if (!isArray && !isPlainObject(value)) return { path, message: 'must be a JSON value (string, number, boolean, null, array or object)' };
    if (depth > MAX_TOOL_ARGUMENTS_DEPTH) return { path, message: `must nest at most ${MAX_TOOL_ARGUMENTS_DEPTH} levels deep` };
    if (isArray) {
      value.forEach((item, index) => {
        stack.push({ value: item, path: [...path, index], depth: depth + 1 });
      });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return { path: [...path, key], message: 'may not be named __proto__' };
      if (LONE_SURROGATE.test(key)) return { path, message: 'member names must be well-formed Unicode (one holds a lone surrogate)' };
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

/**
 * A tool call's `arguments`, exactly as the tool is to receive them: any JSON object, at most
 * {@link MAX_TOOL_ARGUMENTS_BYTES} bytes as JCS and {@link MAX_TOOL_ARGUMENTS_DEPTH} levels deep.
 * Nothing in it is normalised, trimmed or dropped (the value passes through as it came), since
 * these are the bytes the upstream tool runs on and `/redeem` compares; what the person sees is
 * made readable by the display instead (`displayToolCall`).
 *
 * @see RFC 8785 (JCS); MCP 2025-11-25 `tools/call` (`params.arguments`)
 */
export const toolArguments = z
  .custom<JsonObject>((value) => isPlainObject(value), 'must be a JSON object')
  .superRefine((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) {
      ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
      return;
    }
    const bytes = utf8Length(canonicalize(value));
    if (bytes > MAX_TOOL_ARGUMENTS_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_TOOL_ARGUMENTS_BYTES} bytes as JCS (RFC 8785); these are ${bytes}` });
    }
  });
