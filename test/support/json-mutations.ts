import fc from 'fast-check';
import { numberText, oddString } from './odd-values.ts';

// Mutated JSON bodies for fuzzing (mutations.ts), as trees that can hold what JSON.stringify never
// writes (duplicate keys, raw numbers).

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
export type JsonMutation = { op: 'drop'; at: number } | { op: 'duplicate'; at: number; value: Json | null } | { op: 'replace'; at: number; value: Json } | { op: 'rename'; at: number; name: string } | { op: 'add'; at: number; name: string; value: Json };

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
    if (node.t === 'arr') for (const [i, item] of node.items.entries()) walk(item, node, i);
    if (node.t === 'obj') for (const [i, [, member]] of node.members.entries()) walk(member, node, i);
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

/** `value` serialised with `changes` applied: the tree's changes, then the text's. */
export function mutatedJson(value: unknown, changes: JsonChanges): string {
  return mutateText(jsonText(mutateJson(toJson(value), changes.tree)), changes.text);
}
