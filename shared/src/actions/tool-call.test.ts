import { describe, expect, it } from 'vitest';
import { canonicalize } from '../jcs/canonicalize.ts';
import { authorizationDetails, displayAction } from './registry.ts';
import { MAX_TOOL_ARGUMENTS_BYTES, utf8Length } from './tool-arguments.ts';
import { PREVIEW_CODE_POINTS } from './tool-call-display.ts';

const CALL = { type: 'tool_call', transaction_id: 'mcp_1', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice'] } };

function parse(overrides: Record<string, unknown>) {
  return authorizationDetails.safeParse([{ ...CALL, ...overrides }]);
}

function messages(result: ReturnType<typeof parse>): string[] {
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/** Arguments whose JCS text is exactly `bytes` bytes of UTF-8, padded with `filler` (1, 2, 3 or 4 bytes each). */
function argumentsOf(bytes: number, filler = 'x'): { text: string } {
  const frame = utf8Length(canonicalize({ text: '' }));
  const each = utf8Length(filler);
  const count = Math.floor((bytes - frame) / each);
  const text = filler.repeat(count) + 'x'.repeat(bytes - frame - count * each);
  expect(utf8Length(canonicalize({ text }))).toBe(bytes);
  return { text };
}

describe('the tool_call type', () => {
  it('accepts the documented call and keeps its arguments exactly as sent', () => {
    const args = { entityNames: ['Alice', ' Zoe\u0308 '], ratio: 1.5, big: 1e21, deep: { a: [null, true, { b: -3 }] } };
    const result = parse({ arguments: args, annotations: { destructiveHint: true, readOnlyHint: false, title: 'Delete Entities' } });
    expect(result.success).toBe(true);
    // Not trimmed, not NFC: the tool runs on these bytes and /redeem compares them.
    expect(result.data![0]).toEqual({ ...CALL, arguments: args, annotations: { destructiveHint: true, readOnlyHint: false, title: 'Delete Entities' } });
  });

  it('refuses unknown fields, in the action and in its annotations', () => {
    expect(messages(parse({ purpose: 'cleanup' }))).toEqual(['0: Unrecognized key: "purpose"']);
    expect(messages(parse({ annotations: { destructiveHint: true, dangerous: true } }))).toEqual(['0.annotations: Unrecognized key: "dangerous"']);
    expect(messages(parse({ annotations: { destructiveHint: 'yes' } }))[0]).toMatch(/^0\.annotations\.destructiveHint: /);
  });

  it('refuses a tool or server name MCP would not give, and arguments that are not an object', () => {
    expect(messages(parse({ tool: 'delete entities' }))[0]).toMatch(/^0\.tool: must be 1 to 128/);
    expect(parse({ tool: 'a'.repeat(128) }).success).toBe(true);
    expect(parse({ tool: 'a'.repeat(129) }).success).toBe(false);
    expect(messages(parse({ server: 'my server' }))[0]).toMatch(/^0\.server: /);
    for (const bad of [['Alice'], 'Alice', null, 3]) expect(messages(parse({ arguments: bad }))).toEqual(['0.arguments: must be a JSON object']);
    expect(parse({ arguments: {} }).success).toBe(true);
  });

  it('takes arguments of exactly 8 KB as JCS and refuses one byte more', () => {
    expect(MAX_TOOL_ARGUMENTS_BYTES).toBe(8192);
    expect(parse({ arguments: argumentsOf(8192) }).success).toBe(true);
    expect(messages(parse({ arguments: argumentsOf(8193) }))).toEqual(['0.arguments: must be at most 8192 bytes as JCS (RFC 8785); these are 8193']);
  });

  it('counts the limit in UTF-8 bytes of the canonical text, not characters or the JSON as sent', () => {
    // 2-, 3- and 4-byte characters: 8192 bytes is far fewer than 8192 characters.
    for (const filler of ['ö', '東', '🙂']) {
      expect(parse({ arguments: argumentsOf(8192, filler) }).success).toBe(true);
      expect(parse({ arguments: argumentsOf(8193, filler) }).success).toBe(false);
    }
    // JCS escapes a control character as \u001f (6 bytes), and a quote as \" (2).
    const control = { text: '\u001f'.repeat(1400) };
    expect(utf8Length(canonicalize(control))).toBe(11 + 6 * 1400);
    expect(messages(parse({ arguments: control }))[0]).toContain('these are 8411');
  });

  it('refuses nesting past 16 levels, a lone surrogate, a __proto__ member and values JSON cannot carry', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 16; i++) deep = { d: deep };
    expect(parse({ arguments: deep }).success).toBe(true);
    expect(messages(parse({ arguments: { d: deep } }))[0]).toMatch(/must nest at most 16 levels deep/);
    expect(messages(parse({ arguments: { name: 'a\ud800b' } }))).toEqual(['0.arguments.name: must be well-formed Unicode (it holds a lone surrogate)']);
    expect(parse({ arguments: { name: '\ud83d\ude42' } }).success).toBe(true);
    expect(messages(parse({ arguments: JSON.parse('{"a":{"__proto__":{"x":1}}}') }))).toEqual(['0.arguments.a.__proto__: may not be named __proto__']);
    expect(messages(parse({ arguments: { when: new Date(0) } }))[0]).toMatch(/^0\.arguments\.when: must be a JSON value/);
    expect(messages(parse({ arguments: { n: Number.NaN } }))).toEqual(['0.arguments.n: must be a finite number']);
  });

  it('is one action among others of a request, and moves no money', () => {
    const payment = { type: 'payment', transaction_id: 'txn_1', amount_minor: Number.MAX_SAFE_INTEGER, currency: 'EUR', payee: { id: 'a', name: 'ACME' }, purpose: 'x' };
    expect(authorizationDetails.safeParse([payment, CALL]).success).toBe(true);
  });
});

describe('how a person sees a tool call', () => {
  const display = (args: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    const result = parse({ arguments: args, ...more });
    if (!result.success) throw new Error(messages(result).join('; '));
    return displayAction(result.data[0]!);
  };

  it('names the server and the tool, and says what the server states about it', () => {
    const shown = display({ entityNames: ['Alice'] }, { annotations: { title: 'Delete Entities', destructiveHint: true, openWorldHint: false } });
    expect(shown).toMatchObject({ type: 'tool_call', title: 'Run delete_entities on memory', summary: 'memory: delete_entities' });
    expect(shown.fields).toEqual([
      { label: 'Server', value: 'memory' },
      { label: 'Tool', value: 'delete_entities (Delete Entities)' },
      { label: 'Its server says', value: 'destructive, stays within its server' },
      { label: 'Arguments', value: 'entityNames: ["Alice"]' },
      { label: 'Transaction', value: 'mcp_1' },
    ]);
  });

  it('shows nested values member by member and lists item by item, in JCS order', () => {
    const shown = display({ z: 1.5, a: { b: [1, 'two', null, { c: false }] } });
    expect(shown.arguments).toEqual([
      {
        name: 'a',
        value: {
          kind: 'object',
          members: [
            {
              name: 'b',
              value: {
                kind: 'list',
                items: [
                  { kind: 'number', text: '1' },
                  { kind: 'text', preview: 'two', full: 'two', folded: false },
                  { kind: 'null', text: 'null' },
                  { kind: 'object', members: [{ name: 'c', value: { kind: 'boolean', text: 'false' } }] },
                ],
              },
            },
          ],
        },
      },
      { name: 'z', value: { kind: 'number', text: '1.5' } },
    ]);
    expect(shown.fields.find((field) => field.label === 'Arguments')?.value).toBe('a: {b: [1, "two", null, {c: false}]}, z: 1.5');
  });

  it('folds a long string to a preview and keeps the full text', () => {
    const long = 'word '.repeat(400).trim();
    const [member] = display({ body: long }).arguments!;
    expect(member!.value).toEqual({ kind: 'text', preview: `${long.slice(0, PREVIEW_CODE_POINTS).trimEnd()}…`, full: long, folded: true });
    const lines = 'one\ntwo\nthree\nfour\nfive\nsix';
    expect(display({ body: lines }).arguments![0]!.value).toEqual({ kind: 'text', preview: 'one\ntwo\nthree\nfour…', full: lines, folded: true });
    const short = 'x'.repeat(PREVIEW_CODE_POINTS);
    expect(display({ body: short }).arguments![0]!.value).toEqual({ kind: 'text', preview: short, full: short, folded: false });
    // The one-line field is cut too, so a push or a list never carries 8 KB.
    expect(display({ body: long }).fields.find((field) => field.label === 'Arguments')!.value).toHaveLength(241);
  });

  it('shows non-ASCII text as it is, and never cuts a character in half', () => {
    const emoji = '🙂'.repeat(PREVIEW_CODE_POINTS + 5);
    const value = display({ name: 'Zoë 東京 Müller', mood: emoji }).arguments!;
    expect(value.find((member) => member.name === 'name')!.value).toEqual({ kind: 'text', preview: 'Zoë 東京 Müller', full: 'Zoë 東京 Müller', folded: false });
    const mood = value.find((member) => member.name === 'mood')!.value as { preview: string; full: string };
    expect(mood.preview).toBe(`${'🙂'.repeat(PREVIEW_CODE_POINTS)}…`);
    expect(mood.full).toBe(emoji);
  });

  it('reveals characters a person cannot see instead of letting them act on the text', () => {
    const [member] = display({ ['pa\u200bth']: 'rm -rf /\u202e/gnp.txt\nnext line' }).arguments!;
    expect(member).toEqual({ name: 'pa⟨U+200B⟩th', value: { kind: 'text', preview: 'rm -rf /⟨U+202E⟩/gnp.txt\nnext line', full: 'rm -rf /⟨U+202E⟩/gnp.txt\nnext line', folded: false } });
  });
});
