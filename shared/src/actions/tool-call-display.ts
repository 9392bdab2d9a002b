import { canonicalize } from '../jcs/canonicalize.ts';
import { revealUnseen } from '../schemas/text.ts';
import type { ActionDisplay, DisplayField, DisplayMember, DisplayValue } from './display.ts';
import { displayPrecondition } from './precondition.ts';
import type { JsonValue } from './tool-arguments.ts';
import type { ToolAnnotations, ToolCallDetails } from './tool-call.ts';

/** A string longer than this many code points, or of more lines than {@link PREVIEW_LINES}, is folded. */
export const PREVIEW_CODE_POINTS = 160;
/** Lines a folded string's preview keeps at most. */
export const PREVIEW_LINES = 4;
/** The one-line `Arguments` field stops here (code points), with an ellipsis. */
const ONE_LINE_CODE_POINTS = 240;

/** The first `max` code points of `text` (never half a surrogate pair). */
function firstCodePoints(text: string, max: number): string {
  let out = '';
  let count = 0;
  for (const character of text) {
    if (count++ === max) break;
    out += character;
  }
  return out;
}

function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A string as shown: unseen characters revealed, folded past {@link PREVIEW_CODE_POINTS} or {@link PREVIEW_LINES}. */
function displayString(raw: string): DisplayValue {
  const full = revealUnseen(raw);
  let preview = full;
  const lines = full.split('\n');
  if (lines.length > PREVIEW_LINES) preview = lines.slice(0, PREVIEW_LINES).join('\n');
  if (codePointLength(preview) > PREVIEW_CODE_POINTS) preview = firstCodePoints(preview, PREVIEW_CODE_POINTS);
  const folded = preview !== full;
  return { kind: 'text', preview: folded ? `${preview.trimEnd()}…` : full, full, folded };
}

/**
 * One argument value as the person reads it (see {@link DisplayValue}). Recursive, but the
 * arguments are at most 16 levels deep (`MAX_TOOL_ARGUMENTS_DEPTH`). Members in JCS order (by
 * UTF-16 code units), the order `details_hash` reads them in, so two spellings of one call display alike.
 */
export function displayJsonValue(value: JsonValue): DisplayValue {
  if (value === null) return { kind: 'null', text: 'null' };
  if (typeof value === 'string') return displayString(value);
  if (typeof value === 'number') return { kind: 'number', text: canonicalize(value) };
  if (typeof value === 'boolean') return { kind: 'boolean', text: String(value) };
  if (Array.isArray(value)) return { kind: 'list', items: value.map(displayJsonValue) };
  return { kind: 'object', members: displayMembers(value) };
}

function displayMembers(object: { [key: string]: JsonValue }): DisplayMember[] {
  return Object.keys(object)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => ({ name: revealUnseen(name), value: displayJsonValue(object[name]!) }));
}

/** A value on one line: strings quoted, lists in brackets, objects in braces, nothing folded (the caller cuts). */
function oneLine(value: DisplayValue): string {
  switch (value.kind) {
    case 'text':
      return JSON.stringify(value.full);
    case 'list':
      return `[${value.items.map(oneLine).join(', ')}]`;
    case 'object':
      return `{${value.members.map((member) => `${member.name}: ${oneLine(member.value)}`).join(', ')}}`;
    default:
      return value.text;
  }
}

/** The hints the upstream stated, as words, in a fixed order; unstated hints are not guessed. */
function hintWords(annotations: ToolAnnotations): string[] {
  const words: string[] = [];
  if (annotations.readOnlyHint !== undefined) words.push(annotations.readOnlyHint ? 'read-only' : 'not read-only');
  if (annotations.destructiveHint !== undefined) words.push(annotations.destructiveHint ? 'destructive' : 'not destructive');
  if (annotations.idempotentHint !== undefined) words.push(annotations.idempotentHint ? 'idempotent' : 'not idempotent');
  if (annotations.openWorldHint !== undefined) words.push(annotations.openWorldHint ? 'reaches outside systems' : 'stays within its server');
  return words;
}

/**
 * What the person sees for a tool call: the server, the tool, what its server says of it, and
 * each argument, nested values readable and long strings folded with the full text kept
 * (`arguments`), plus the same on one line (`fields`, `Arguments`) for narrow views.
 * Summary `memory: delete_entities`.
 */
export function displayToolCall(details: ToolCallDetails): ActionDisplay {
  const members = displayMembers(details.arguments);
  const line = members.map((member) => `${member.name}: ${oneLine(member.value)}`).join(', ');
  const shortLine = codePointLength(line) > ONE_LINE_CODE_POINTS ? `${firstCodePoints(line, ONE_LINE_CODE_POINTS)}…` : line;
  const hints = details.annotations ? hintWords(details.annotations) : [];
  const fields: DisplayField[] = [
    { label: 'Server', value: details.server },
    { label: 'Tool', value: details.annotations?.title ? `${details.tool} (${details.annotations.title})` : details.tool },
    ...(hints.length ? [{ label: 'Its server says', value: hints.join(', ') }] : []),
    { label: 'Arguments', value: shortLine === '' ? '(none)' : shortLine },
    { label: 'Transaction', value: details.transaction_id },
    ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
  ];
  return {
    type: 'tool_call',
    verb: details.tool,
    title: `Run ${details.tool} on ${details.server}`,
    summary: `${details.server}: ${details.tool}`,
    fields,
    arguments: members,
  };
}
