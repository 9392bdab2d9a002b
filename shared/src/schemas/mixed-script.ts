import { codePointName } from './code-point-name.ts';

/**
 * The scripts a name may be written in: the Recommended scripts of UAX #31 (Table 4). A name in a
 * Limited Use or Excluded script (Cherokee, Runic, Coptic…) is refused: those are where most
 * look-alikes of Latin letters live, and no payee needs them.
 * @see Unicode UAX #31 Table 4, UTS #39 §3.1 (Identifier_Type)
 */
const RECOMMENDED_SCRIPTS = [
  'Latin',
  'Arabic',
  'Armenian',
  'Bengali',
  'Bopomofo',
  'Cyrillic',
  'Devanagari',
  'Ethiopic',
  'Georgian',
  'Greek',
  'Gujarati',
  'Gurmukhi',
  'Han',
  'Hangul',
  'Hebrew',
  'Hiragana',
  'Kannada',
  'Katakana',
  'Khmer',
  'Lao',
  'Malayalam',
  'Myanmar',
  'Oriya',
  'Sinhala',
  'Tamil',
  'Telugu',
  'Thaana',
  'Thai',
  'Tibetan',
] as const;

/** A whole string of characters whose Script_Extensions meet `scripts`, or are Common or Inherited. */
function coveredBy(scripts: readonly string[]): RegExp {
  return new RegExp(`^[\\p{scx=Zyyy}\\p{scx=Zinh}${scripts.map((script) => `\\p{scx=${script}}`).join('')}]*$`, 'u');
}

/**
 * UTS #39 "Highly Restrictive": one script, or Latin with Han and the Japanese kana, with Han and
 * Hangul, or with Han and Bopomofo (the ways Japanese, Korean and Chinese are written).
 * @see Unicode UTS #39 §5.2
 */
const SCRIPT_SETS: readonly RegExp[] = [...RECOMMENDED_SCRIPTS.map((script) => coveredBy([script])), coveredBy(['Latin', 'Han', 'Hiragana', 'Katakana']), coveredBy(['Latin', 'Han', 'Hangul']), coveredBy(['Latin', 'Han', 'Bopomofo'])];
const SCRIPT_OF = RECOMMENDED_SCRIPTS.map((script) => [script, new RegExp(`\\p{scx=${script}}`, 'u')] as const);
const COMMON = /[\p{scx=Zyyy}\p{scx=Zinh}]/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Why a name mixes scripts (or uses one no name may), naming them and the first code point of the second; null when it does not. */
export function mixedScriptProblem(name: string): string | null {
  if (PRINTABLE_ASCII.test(name) || SCRIPT_SETS.some((set) => set.test(name))) return null;
  const seen: string[] = [];
  for (const character of name) {
    if (COMMON.test(character)) continue;
    const script = SCRIPT_OF.find(([, pattern]) => pattern.test(character))?.[0];
    if (!script) return `must be written in a script accepted in names (${codePointName(character)} is not)`;
    if (!seen.includes(script)) seen.push(script);
    if (seen.length === 2) return `must be written in one script: it mixes ${seen[0]} and ${seen[1]} (${codePointName(character)})`;
  }
  // Each character is of some script, yet no one script (or CJK set) covers them all.
  return `must be written in one script: it mixes ${seen.join(', ')}`;
}
