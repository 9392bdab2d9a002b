/** Where a value sits in a JSON document: member names and array indexes, outermost first. */
export type JsonPath = (string | number)[];

/** A number whose text is not how RFC 8785 (JCS) writes a safe integer, and where it sits. */
export interface InexactNumber {
  path: JsonPath;
  /** The number as written, e.g. `49000.0`, `4.9e4`, `-0`, `9007199254740993`. */
  text: string;
}

/** What {@link parseStrictJson} answers. */
export type StrictJsonResult =
  | {
      ok: true;
      /** The value, exactly as `JSON.parse` builds it (a `__proto__` member is an own member, not a prototype). */
      value: unknown;
      /** Every number not written as a canonical integer (see {@link parseStrictJson}); usually empty. */
      inexactNumbers: InexactNumber[];
      /** How deep arrays and objects nest: 0 for a scalar, 1 for `[]`, 2 for `[{}]`. */
      depth: number;
    }
  | { ok: false; problem: 'syntax' }
  | {
      ok: false;
      problem: 'duplicate';
      /** The repeated member: the path of the object it is in, then its name. */
      path: JsonPath;
    };

const NONE: InexactNumber[] = [];

/** `0`, or an optional `-` and a non-zero digit followed by at most 15 digits: the only text JCS writes for a safe integer. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]{0,15})$/;

function isCanonicalInteger(text: string): boolean {
  return CANONICAL_INTEGER.test(text) && Number.isSafeInteger(Number(text));
}

/**
 * Whether a number's text is exactly how RFC 8785 (JCS) writes the value it parses to (ECMAScript
 * `Number::toString`: `1.5`, `0.1`, `1e+21`, `49000`; not `1.50`, `15e-1`, `1E21`, `-0` or a
 * 17th significant digit the double cannot hold). Such a number means one IEEE 754 value to every
 * parser that reads doubles, and the hash of the parsed value is a hash of the text: the numbers a
 * tool call's arguments may hold beside canonical integers (see `parse-backchannel-request.ts`).
 * @see RFC 8785 §3.2.2.3
 */
export function isJcsNumber(text: string): boolean {
  const value = Number(text);
  return Number.isFinite(value) && !Object.is(value, -0) && String(value) === text;
}

/** Past this many members an object's names are kept in a `Set`: a 64 KB body of `"a0":0,…` must not cost n² comparisons. */
const SMALL_OBJECT = 16;

/** The names of one object's members so far. */
type Names = string[] | Set<string>;

/** Adds `name`; false when it was there already. */
function addName(names: Names[], level: number, name: string): boolean {
  const seen = names[level]!;
  if (Array.isArray(seen)) {
    if (seen.includes(name)) return false;
    if (seen.length < SMALL_OBJECT) seen.push(name);
    else names[level] = new Set([...seen, name]);
    return true;
  }
  if (seen.has(name)) return false;
  seen.add(name);
  return true;
}

/**
 * Parses JSON text and refuses what `JSON.parse` lets through silently: an object member named
 * twice, at any depth. `JSON.parse` keeps the last value, other parsers keep the first (RFC 8259
 * §4 leaves it open; I-JSON, RFC 7493 §2.3, forbids it), so `{"amount_minor": 1, "amount_minor":
 * 49000}` would be one amount to the server and another to an executor or a log reader. Names are
 * compared after unescaping: `"a"` and `"\u0061"` are one name.
 *
 * It also reports every number whose text is not a canonical integer (`0`, or `-?[1-9][0-9]*`
 * within ±(2^53 − 1)): `49000.0`, `4.9e4`, `-0`, `1E3`, `9007199254740993`. `JSON.parse` reads each of
 * them as some integer, and the JCS form of that value (RFC 8785 §3.2.2.3) differs from the
 * text, so a hash over the parsed value would not be a hash over what was sent. Callers decide
 * what such a number means where it sits (the action refuses them; other bodies ignore them).
 *
 * `JSON.parse` stays the parser: it checks the grammar (RFC 8259), decodes the escapes and builds
 * the value; then one pass over the text, which is known to be valid by then, follows only its
 * strings, brackets, commas and numbers. So the grammar is V8's, and on a 400-byte `/redeem` body
 * the whole costs 1.3–2 × `JSON.parse` alone (a few µs), where a JSON AST parser costs 9–15 ×.
 *
 * @param text - the JSON text (already decoded from UTF-8).
 * @returns the value and the inexact numbers, or `syntax` (not JSON) or `duplicate` (with the path).
 * @see RFC 8259 §4 and §6, RFC 7493 §2.3, RFC 8785 §3.2.2.3
 */
export function parseStrictJson(text: string): StrictJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'syntax' };
  }
  // One entry per open container: the names of its members so far (objects) or null (arrays), and
  // where the scanner stands in it: the current member's name, or the current element's index.
  const names: (Names | null)[] = [];
  const at: JsonPath = [];
  let depth = 0;
  let deepest = 0;
  let expectName = false;
  let inexactNumbers = NONE;
  const length = text.length;
  for (let i = 0; i < length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The closing quote is the next one not escaped, i.e. not after an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        let before = end - 1;
        while (text.charCodeAt(before) === 0x5c /* \ */) before--;
        if ((end - 1 - before) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (expectName) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (!addName(names as Names[], depth - 1, name)) return { ok: false, problem: 'duplicate', path: [...at.slice(0, depth - 1), name] };
        at[depth - 1] = name;
        expectName = false;
      }
      i = end + 1;
    } else if (c === 0x7b /* { */) {
      names[depth] = [];
      at[depth] = '';
      if (++depth > deepest) deepest = depth;
      expectName = true;
      i++;
    } else if (c === 0x5b /* [ */) {
      names[depth] = null;
      at[depth] = 0;
      if (++depth > deepest) deepest = depth;
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      // `{}`: no name came after the brace.
      expectName = false;
      i++;
    } else if (c === 0x2c /* , */) {
      if (names[depth - 1] === null) at[depth - 1] = (at[depth - 1] as number) + 1;
      else expectName = true;
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      for (; end < length; end++) {
        const d = text.charCodeAt(end);
        // Digits, `.`, `e`, `E`, `+`, `-`: in valid JSON, outside a string, only a number has them.
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
      }
      const number = text.slice(i, end);
      if (!isCanonicalInteger(number)) {
        if (inexactNumbers === NONE) inexactNumbers = [];
        inexactNumbers.push({ path: at.slice(0, depth), text: number });
      }
      i = end;
    } else {
      // White space, `:` and the letters of true, false and null.
      i++;
    }
  }
  return { ok: true, value, inexactNumbers, depth: deepest };
}

/** A path as a reader writes it: `authorization_details[0].payee.name`, after an optional prefix. */
export function formatJsonPath(path: JsonPath, prefix = ''): string {
  let out = prefix;
  for (const step of path) out += typeof step === 'number' ? `[${step}]` : out === '' ? step : `.${step}`;
  return out;
}
