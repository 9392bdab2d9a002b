import { parse as parseAst, type AnyNode } from '@humanwhocodes/momoa';
import { describe, expect, it } from 'vitest';
import { formatJsonPath, parseStrictJson, type JsonPath, type StrictJsonResult } from './strict-json.ts';

describe('parseStrictJson', () => {
  it('answers what JSON.parse answers for JSON with unique names and integers', () => {
    const text = '{"type":"payment","amount_minor":49000,"payee":{"id":"acct_77","name":"ACME Ltd"},"list":[1,-2,0,{"a":[]}],"e":{}}';
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text), inexactNumbers: [], depth: 4 });
  });

  it.each([
    ['at the top level', '{"amount_minor":1,"amount_minor":49000}', ['amount_minor']],
    ['nested in payee', '[{"payee":{"name":"ACME Ltd","id":"a","name":"EVIL Ltd"}}]', [0, 'payee', 'name']],
    ['spelled with an escape', '{"name":"a","\\u006eame":"b"}', ['name']],
    ['after a nested object of the same name', '{"a":{"a":1},"b":2,"a":3}', ['a']],
    ['in the second element of an array', '[{"a":1},{"b":1,"b":2}]', [1, 'b']],
    ['in an object with many members', `{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`, ['k7']],
  ])('refuses a member named twice %s', (_name, text, path) => {
    expect(parseStrictJson(text)).toEqual({ ok: false, problem: 'duplicate', path });
  });

  it('keeps names that only look alike apart, and reads brackets and quotes inside strings as text', () => {
    const text = '{"a":"}{\\",","A":"[\\\\","a ":1,"\\u0061b":{"x":"\\"a\\":1"}}';
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text), inexactNumbers: [], depth: 2 });
  });

  it('refuses text that is not JSON', () => {
    for (const text of ['', '{', '{"a":1,}', "{'a':1}", '[01]', '{"a":1} x', 'NaN']) expect(parseStrictJson(text)).toEqual({ ok: false, problem: 'syntax' });
  });

  it('reports every number that is not written as a canonical safe integer, with its path', () => {
    const text = '[{"amount_minor":49000.0,"ok":49000,"payee":{"n":[4.9e4,-0,0,-1]}},1E3,9007199254740993,9007199254740991,0.5]';
    const result = parseStrictJson(text);
    expect(result.ok && result.inexactNumbers).toEqual([
      { path: [0, 'amount_minor'], text: '49000.0' },
      { path: [0, 'payee', 'n', 0], text: '4.9e4' },
      { path: [0, 'payee', 'n', 1], text: '-0' },
      { path: [1], text: '1E3' },
      { path: [2], text: '9007199254740993' },
      { path: [4], text: '0.5' },
    ]);
  });

  it('formats a path as a reader writes it', () => {
    expect(formatJsonPath([0, 'payee', 'name'], 'authorization_details')).toBe('authorization_details[0].payee.name');
    expect(formatJsonPath(['authorization_details', 0, 'amount_minor'])).toBe('authorization_details[0].amount_minor');
  });

  // Differential: the scanner against a well-kept JSON AST parser on generated documents full of
  // the spellings that trip scanners (escaped quotes and backslashes, brackets and digits inside
  // strings, escaped names, every number form), seeded so a failure repeats.
  it('agrees with an AST parser on 3,000 generated documents', () => {
    const random = seeded(0x5eed);
    for (let n = 0; n < 3000; n++) {
      const text = generate(random, 0);
      expect(parseStrictJson(text), text).toEqual(oracle(text));
    }
  });
});

/** What parseStrictJson must answer, from momoa's AST: the first repeated name in text order, and the inexact numbers. */
function oracle(text: string): StrictJsonResult {
  const document = parseAst(text);
  const inexactNumbers: { path: JsonPath; text: string }[] = [];
  let duplicate: JsonPath | null = null;
  let depth = 0;
  const walk = (node: AnyNode, path: JsonPath, level = 0): void => {
    if (duplicate) return;
    if (node.type === 'Object' || node.type === 'Array') depth = Math.max(depth, level + 1);
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        if (seen.has(name)) {
          duplicate = [...path, name];
          return;
        }
        seen.add(name);
        walk(member.value, [...path, name], level + 1);
        if (duplicate) return;
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, index) => {
        walk(element.value, [...path, index], level + 1);
      });
    } else if (node.type === 'Number') {
      const raw = text.slice(node.loc.start.offset, node.loc.end.offset);
      if (!(/^(?:0|-?[1-9][0-9]*)$/.test(raw) && Number.isSafeInteger(Number(raw)))) inexactNumbers.push({ path, text: raw });
    }
  };
  walk(document.body, []);
  if (duplicate) return { ok: false, problem: 'duplicate', path: duplicate };
  return { ok: true, value: JSON.parse(text), inexactNumbers, depth };
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const NAMES = ['a', 'b', 'name', '\\u0061', '\\"', '\\\\', '{', '[1,', 'a b', '\\u006eame', '0', '-1'];
const STRINGS = ['', 'x', '}', ']', '{\\"a\\":1}', '\\"', '\\\\', '\\\\\\"', '1.5e3', '-0', ',', ':', '\\u0022', '\\n', 'ä', '\\ud83d\\ude00'];
const NUMBERS = ['0', '-0', '1', '-1', '49000', '49000.0', '4.9e4', '49E3', '1e+2', '1E-2', '0.5', '-0.0', '9007199254740991', '9007199254740992', '-9007199254740993', '123456789012345678901234567890'];
const SPACES = ['', '', '', ' ', '\n', '\t ', '\r\n  '];

function generate(random: () => number, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const space = () => pick(SPACES);
  const kind = depth > 3 ? Math.floor(random() * 3) : Math.floor(random() * 5);
  if (kind === 0) return `"${pick(STRINGS)}"`;
  if (kind === 1) return pick(NUMBERS);
  if (kind === 2) return pick(['true', 'false', 'null', '"true"']);
  const count = Math.floor(random() * 5);
  if (kind === 3) return `[${space()}${Array.from({ length: count }, () => `${space()}${generate(random, depth + 1)}${space()}`).join(',')}]`;
  return `{${space()}${Array.from({ length: count }, () => `${space()}"${pick(NAMES)}"${space()}:${space()}${generate(random, depth + 1)}${space()}`).join(',')}}`;
}
