import fc from 'fast-check';

/**
 * Mutated requests for fuzzing (`fuzz.test.ts`): arbitraries of fast-check that change a valid
 * JSON or form body the way an attacker would (fields dropped, repeated, renamed, retyped or added;
 * odd strings and numbers; JSON that does not parse), rather than random bytes, so most inputs get
 * past the first parser and reach the checks behind it. Each arbitrary yields a description of the
 * changes; `mutatedJson` and `formBody` apply it to the valid body of the moment.
 */

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

// ---------------------------------------------------------------------------------------------
// Values an attacker tries.
// ---------------------------------------------------------------------------------------------

/** Strings that are odd for a server: controls, invisible and bidi characters, confusables, key injections, huge ones. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'binary-ascii', maxLength: 24 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u202Eb', 'Ref\u200Bund', 'e\u0301\u0301\u0301\u0301', 'ＡＣＭＥ Ltd', 'АСМЕ Ltd', '\uFEFFACME', '\uD800', '\uDFFF\uD800', '}:{x', 'alice}:{x', '__proto__', 'constructor', 'toString', 'null', '%zz', '%ff', '\r\n', '"', '\\', '😀'),
  fc.constantFrom(300, 5_000, 70_000).map((n) => 'x'.repeat(n)),
);

/** Numbers as JSON text (and some that JSON has no spelling for): zeros, signs, exponents, the safe-integer edge, overflow. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-0', '-1', '1', '4900', '4900.0', '4.9e3', '49E2', '1e300', '1e309', '-1e309', '9007199254740991', '9007199254740992', '9007199254740993', '1.5', '0.1', '00', '+1', 'NaN', 'Infinity', '0x10', '1_000', '1e-400'),
  fc.integer().map(String),
  fc.double().map(String),
);

// ---------------------------------------------------------------------------------------------
// JSON bodies, as trees that can hold what JSON.stringify never writes (duplicate keys, raw numbers).
// ---------------------------------------------------------------------------------------------

type Json = { t: 'obj'; members: [string, Json][] } | { t: 'arr'; items: Json[] } | { t: 'lit'; text: string };

const lit = (text: string): Json => ({ t: 'lit', text });

function toJson(value: unknown): Json {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(toJson) };
  if (value !== null && typeof value === 'object') return { t: 'obj', members: Object.entries(value).map(([name, member]) => [name, toJson(member)]) };
  return lit(JSON.stringify(value));
}

function jsonText(node: Json): string {
  if (node.t === 'lit') return node.text;
  if (node.t === 'arr') return `[${node.items.map(jsonText).join(',')}]`;
  return `{${node.members.map(([name, member]) => `${JSON.stringify(name)}:${jsonText(member)}`).join(',')}}`;
}

/** One change to a JSON tree; `at` picks the node (modulo the number of nodes, depth first). */
export type JsonMutation =
  | { op: 'drop'; at: number }
  | { op: 'duplicate'; at: number; value: Json | null }
  | { op: 'replace'; at: number; value: Json }
  | { op: 'rename'; at: number; name: string }
  | { op: 'add'; at: number; name: string; value: Json };

/** Text-level damage after serialising: JSON that does not parse, or parses oddly. */
type TextMutation = { op: 'truncate'; at: number } | { op: 'insert'; at: number; text: string } | { op: 'wrap'; before: string; after: string };

/** Names the schemas know (so a rename or an addition lands on a real field) and odd ones. */
const memberName = fc.oneof(
  fc.constantFrom('type', 'transaction_id', 'amount_minor', 'currency', 'payee', 'id', 'name', 'purpose', 'precondition', 'token', 'authorization_details', 'current_versions', 'decision', 'response', 'selected_code', 'clientDataJSON', 'authenticatorData', 'signature', 'userHandle', 'rawId', '__proto__', 'constructor'),
  oddString,
);

function jsonValue(ids: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 3, arbitrary: oddString.map((text) => lit(JSON.stringify(text))) },
    { weight: 3, arbitrary: numberText.map(lit) },
    { weight: 2, arbitrary: ids.map((id) => lit(JSON.stringify(id))) },
    { weight: 1, arbitrary: fc.constantFrom<Json>(lit('null'), lit('true'), lit('false'), { t: 'arr', items: [] }, { t: 'obj', members: [] }) },
    { weight: 1, arbitrary: fc.constantFrom(64, 10_000).map((depth) => lit(`${'['.repeat(depth)}${']'.repeat(depth)}`)) },
  );
}

function jsonMutation(ids: fc.Arbitrary<string>): fc.Arbitrary<JsonMutation> {
  const at = fc.nat();
  const value = jsonValue(ids);
  return fc.oneof(
    fc.record({ op: fc.constant('drop' as const), at }),
    fc.record({ op: fc.constant('duplicate' as const), at, value: fc.option(value, { nil: null }) }),
    fc.record({ op: fc.constant('replace' as const), at, value }),
    fc.record({ op: fc.constant('rename' as const), at, name: memberName }),
    fc.record({ op: fc.constant('add' as const), at, name: memberName, value }),
  );
}

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(',', '"', '{', ']', '\u0000', '\\', ' ', '//', '\uFEFF') }),
  fc.record({ op: fc.constant('wrap' as const), before: fc.constantFrom('', ' ', '\uFEFF', '[', 'null'), after: fc.constantFrom('', ' ', ',', '}', '\n{}') }),
);

interface Slot {
  node: Json;
  parent: Json | null;
  index: number;
}

function slots(root: Json): Slot[] {
  const all: Slot[] = [];
  const walk = (node: Json, parent: Json | null, index: number) => {
    all.push({ node, parent, index });
    if (node.t === 'arr') node.items.forEach((item, i) => walk(item, node, i));
    if (node.t === 'obj') node.members.forEach(([, member], i) => walk(member, node, i));
  };
  walk(root, null, 0);
  return all;
}

function mutateJson(root: Json, mutations: readonly JsonMutation[]): Json {
  let tree = root;
  for (const mutation of mutations) {
    const all = slots(tree);
    const { node, parent, index } = all[mutation.at % all.length]!;
    switch (mutation.op) {
      case 'drop':
        if (parent?.t === 'obj') parent.members.splice(index, 1);
        else if (parent?.t === 'arr') parent.items.splice(index, 1);
        else tree = lit('');
        break;
      case 'duplicate':
        if (parent?.t === 'obj') parent.members.splice(index + 1, 0, [parent.members[index]![0], mutation.value ?? node]);
        else if (parent?.t === 'arr') parent.items.splice(index + 1, 0, mutation.value ?? node);
        break;
      case 'replace':
        if (parent?.t === 'obj') parent.members[index]![1] = mutation.value;
        else if (parent?.t === 'arr') parent.items[index] = mutation.value;
        else tree = mutation.value;
        break;
      case 'rename':
        if (parent?.t === 'obj') parent.members[index]![0] = mutation.name;
        break;
      case 'add':
        if (node.t === 'obj') node.members.push([mutation.name, mutation.value]);
        else if (node.t === 'arr') node.items.push(mutation.value);
        else if (parent?.t === 'obj') parent.members.push([mutation.name, mutation.value]);
        break;
    }
  }
  return tree;
}

function mutateText(text: string, mutation: TextMutation | null): string {
  if (!mutation) return text;
  if (mutation.op === 'truncate') return text.slice(0, mutation.at % (text.length + 1));
  if (mutation.op === 'insert') {
    const at = mutation.at % (text.length + 1);
    return `${text.slice(0, at)}${mutation.text}${text.slice(at)}`;
  }
  return `${mutation.before}${text}${mutation.after}`;
}

/** A valid JSON value, mutated: the tree changes, then (rarely) the text. */
export interface JsonChanges {
  tree: JsonMutation[];
  text: TextMutation | null;
}

/** Changes to a JSON value: `minLength` tree changes or more (an input left valid mostly repeats the baseline). */
export function jsonChanges(ids: fc.Arbitrary<string>, minLength = 1): fc.Arbitrary<JsonChanges> {
  return fc.record({
    tree: fc.array(jsonMutation(ids), { minLength, maxLength: 3 }),
    text: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: textMutation }),
  });
}

export function mutatedJson(value: unknown, changes: JsonChanges): string {
  return mutateText(jsonText(mutateJson(toJson(value), changes.tree)), changes.text);
}

// ---------------------------------------------------------------------------------------------
// Form bodies and content types.
// ---------------------------------------------------------------------------------------------

export type FormMutation =
  | { op: 'drop' | 'duplicate'; at: number }
  | { op: 'replace'; at: number; value: string }
  | { op: 'rename'; at: number; name: string }
  | { op: 'add'; name: string; value: string }
  /** A raw `&`-separated segment, not encoded: `%zz`, `%ff`, `=x`, `&&`. */
  | { op: 'raw'; text: string };

const formName = fc.oneof(fc.constantFrom('scope', 'login_hint', 'id_token_hint', 'login_hint_token', 'binding_message', 'user_code', 'requested_expiry', 'client_notification_token', 'authorization_details', 'request', 'grant_type', 'auth_req_id', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type'), oddString);

export function formMutation(ids: fc.Arbitrary<string>): fc.Arbitrary<FormMutation> {
  const value = fc.oneof(oddString, numberText, ids);
  return fc.oneof(
    fc.record({ op: fc.constantFrom('drop' as const, 'duplicate' as const), at: fc.nat() }),
    fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value }),
    fc.record({ op: fc.constant('rename' as const), at: fc.nat(), name: formName }),
    fc.record({ op: fc.constant('add' as const), name: formName, value }),
    fc.record({ op: fc.constant('raw' as const), text: fc.constantFrom('%zz', 'scope=%ff', 'a=%c0%af', '=openid', '&&', 'login_hint', '%', 'binding_message=%E2%80%AE') }),
  );
}

export function formBody(pairs: [string, string][], mutations: readonly FormMutation[]): string {
  const form = pairs.map(([name, value]) => [name, value] as [string, string]);
  const raw: string[] = [];
  for (const mutation of mutations) {
    const at = 'at' in mutation && form.length > 0 ? mutation.at % form.length : -1;
    if (mutation.op === 'drop' && at >= 0) form.splice(at, 1);
    else if (mutation.op === 'duplicate' && at >= 0) form.splice(at + 1, 0, [...form[at]!]);
    else if (mutation.op === 'replace' && at >= 0) form[at]![1] = mutation.value;
    else if (mutation.op === 'rename' && at >= 0) form[at]![0] = mutation.name;
    else if (mutation.op === 'add') form.push([mutation.name, mutation.value]);
    else if (mutation.op === 'raw') raw.push(mutation.text);
  }
  return [new URLSearchParams(form).toString(), ...raw].filter(Boolean).join('&');
}

/** The right content type mostly; now and then another, or none. */
export function contentType(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(right) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, FORM, JSON_TYPE, `${right}; charset=utf-8`, `${right}; charset=latin1`, 'text/plain', 'multipart/form-data; boundary=x', `${right}x`, right.toUpperCase()) },
  );
}
