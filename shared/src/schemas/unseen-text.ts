import { codePointName } from './code-point-name.ts';

/**
 * Characters a person cannot see, or cannot see for what they are, each with the reason a refusal
 * gives, in the order they are tried:
 * - C0/C1 controls (Cc);
 * - bidirectional controls: the Arabic letter mark, LRM/RLM, embeddings, overrides and isolates
 *   (the "Trojan Source" attack, CVE-2021-42574), which reorder what is shown;
 * - Default_Ignorable_Code_Point (zero-width spaces and joiners, the soft hyphen, variation
 *   selectors, tag characters, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the
 *   Mongolian vowel separator U+180E…), plus the blanks that are not ignorable but show nothing:
 *   U+2800 (braille blank), U+FFFC and U+FFFD (object and replacement characters);
 * - the other format characters (Cf, e.g. U+0600 ARABIC NUMBER SIGN, which draws over the digits after it);
 * - lone surrogates (Cs), line and paragraph separators (Zl, Zp);
 * - private-use (Co) and unassigned (Cn) code points, which each font draws its own way or not at all.
 * @see Unicode UTS #39 §5 and UAX #44 (Default_Ignorable_Code_Point); CVE-2021-42574
 */
const UNSEEN: readonly [RegExp, string][] = [
  [/\p{Cc}/u, 'a control character'],
  [/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'a bidirectional control'],
  [/[\p{Default_Ignorable_Code_Point}\u2800\ufffc\ufffd]/u, 'an invisible or filler character'],
  [/\p{Cf}/u, 'a format character'],
  [/\p{Cs}/u, 'a lone surrogate'],
  [/[\p{Zl}\p{Zp}]/u, 'a line or paragraph separator'],
  [/\p{Co}/u, 'a private-use character'],
  [/\p{Cn}/u, 'an unassigned code point'],
];

/** Everything {@link UNSEEN} refuses, in one pattern: a quick test first (built from it, so the two cannot drift apart). */
const ANY_UNSEEN = new RegExp(UNSEEN.map(([pattern]) => pattern.source).join('|'), 'u');

/**
 * The most nonspacing marks (Mn, Me) one character may carry in a row, counted in NFD. More stack
 * above or below the line into the text around it ("Zalgo"), where they can hide a digit of the
 * amount; real writing needs fewer (Vietnamese, Hebrew points, Indic vowel signs and Tibetan stacks).
 * @see Unicode UTS #39 §5.4 (more than 4 nonspacing marks)
 */
export const MAX_COMBINING_MARKS = 4;
const MARK_RUN = new RegExp(`[\\p{Mn}\\p{Me}]{${MAX_COMBINING_MARKS + 1},}`, 'u');
/** One nonspacing mark twice in a row draws as one (`é` and a second U+0301 look like `é`). @see UTS #39 §5.4 */
const REPEATED_MARK = /([\p{Mn}\p{Me}])\1/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included, on purpose
const NOT_ASCII = /[^\x00-\x7f]/;

/** Why `text` cannot be shown as it is (see {@link UNSEEN} and the mark rules), or null. */
export function unseenProblem(text: string): string | null {
  if (ANY_UNSEEN.test(text)) {
    for (const [pattern, reason] of UNSEEN) {
      const found = pattern.exec(text);
      if (found) return `must not hold ${reason} (${codePointName(found[0])})`;
    }
  }
  if (NOT_ASCII.test(text)) {
    // Marks are counted as UTS #39 counts them, decomposed: NFC hides the first mark in `é`.
    const decomposed = text.normalize('NFD');
    const run = MARK_RUN.exec(decomposed);
    if (run) return `must not put more than ${MAX_COMBINING_MARKS} combining marks on one character (at ${codePointName(run[0])})`;
    const repeated = REPEATED_MARK.exec(decomposed);
    if (repeated) return `must not repeat a combining mark (${codePointName(repeated[1]!)} twice in a row)`;
  }
  return null;
}

/**
 * The display text's canonical form: NFC; every run of space separators (Zs: U+0020, NBSP, the
 * en/em/thin spaces U+2000–U+200A, U+202F, U+205F, the ideographic space U+3000…) as one U+0020,
 * since a person cannot tell them or their number apart; no white space at either end.
 * @see Unicode UAX #15 (NFC)
 */
export function canonicalText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\p{Zs}+/gu, ' ')
    .trim();
}

/**
 * Text the caller does not control (a tool's error message in an outcome report) made acceptable
 * as display text instead of refused: each character a person cannot see becomes a space, the
 * combining marks of text that stacks or repeats them are dropped, and the rest is canonical
 * ({@link canonicalText}). May be empty.
 */
export function toDisplayText(text: string): string {
  let cleaned = text.normalize('NFC').replace(new RegExp(ANY_UNSEEN.source, 'gu'), ' ');
  if (unseenProblem(cleaned)) cleaned = cleaned.normalize('NFD').replace(/[\p{Mn}\p{Me}]/gu, '');
  return canonicalText(cleaned);
}

/**
 * Text that must reach the person exactly as it is (a tool call's argument, which is what the tool
 * runs on and cannot be canonicalised) made safe to show: each character {@link UNSEEN} names
 * (controls, bidirectional controls, invisible, format, private-use and unassigned characters,
 * lone surrogates) is replaced by a visible `⟨U+200B⟩`, so a reordering or hidden character shows
 * as what it is instead of acting on the text around it. Line feeds and tabs stay: they are
 * how multi-line arguments read, and the display keeps white space.
 * @see CVE-2021-42574 (Trojan Source); Unicode UTS #39 §5
 */
export function revealUnseen(text: string): string {
  if (!ANY_UNSEEN.test(text)) return text;
  return text.replace(new RegExp(ANY_UNSEEN.source, 'gu'), (character) => (character === '\n' || character === '\t' ? character : `\u27e8${codePointName(character)}\u27e9`));
}
