import { z } from 'zod';
import { codePointName } from './code-point-name.ts';
import { lookAlikeProblem } from './look-alike.ts';

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
  return text.normalize('NFC').replace(/\p{Zs}+/gu, ' ').trim();
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

/**
 * A string shown to the person who approves, 1 to `max` characters (code points, as zod counts a
 * string's length) of its canonical form.
 *
 * Canonicalised, not refused: NFC, one U+0020 for each run of spaces, trimmed (see
 * {@link canonicalText}). The server stores and shows that form and hashes it into `details_hash`,
 * so an executor must present exactly it at `/redeem` (the token response returns it). Refused,
 * with the reason and the code point: whatever a person cannot see or tell apart, that is control,
 * bidirectional, invisible, filler, format, private-use and unassigned characters, and runs of
 * combining marks (see {@link unseenProblem}).
 * @see docs/design.md guarantees 2–3; Unicode UTS #39 §5
 */
export function displayText(max: number) {
  return z
    .string()
    .transform(canonicalText)
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(max, `must be at most ${max} characters`)
        .superRefine((text, ctx) => {
          const problem = unseenProblem(text);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    );
}

/**
 * The scripts a name may be written in: the Recommended scripts of UAX #31 (Table 4). A name in a
 * Limited Use or Excluded script (Cherokee, Runic, Coptic…) is refused: those are where most
 * look-alikes of Latin letters live, and no payee needs them.
 * @see Unicode UAX #31 Table 4, UTS #39 §3.1 (Identifier_Type)
 */
const RECOMMENDED_SCRIPTS = [
  'Latin', 'Arabic', 'Armenian', 'Bengali', 'Bopomofo', 'Cyrillic', 'Devanagari', 'Ethiopic', 'Georgian', 'Greek', 'Gujarati', 'Gurmukhi',
  'Han', 'Hangul', 'Hebrew', 'Hiragana', 'Kannada', 'Katakana', 'Khmer', 'Lao', 'Malayalam', 'Myanmar', 'Oriya', 'Sinhala', 'Tamil',
  'Telugu', 'Thaana', 'Thai', 'Tibetan',
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
const SCRIPT_SETS: readonly RegExp[] = [
  ...RECOMMENDED_SCRIPTS.map((script) => coveredBy([script])),
  coveredBy(['Latin', 'Han', 'Hiragana', 'Katakana']),
  coveredBy(['Latin', 'Han', 'Hangul']),
  coveredBy(['Latin', 'Han', 'Bopomofo']),
];
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

/**
 * A name the person must tell from every other: display text (see {@link displayText}) without
 * look-alike letters of its own script (`lookAlikeProblem`: NFKC-stable, so no fullwidth
 * `ＡＣＭＥ` or mathematical `𝐀𝐂𝐌𝐄`; no combining mark starting a word; no small capitals `ᴀᴄᴍᴇ`
 * or IPA `ɑ`), and in one script, as UTS #39 "Highly Restrictive" has it, so `ACME` with a
 * Cyrillic `а` (U+0430) in it, which looks like the Latin one, is refused. Common characters
 * (digits, punctuation, spaces) and inherited ones (combining marks) go with any script. A name
 * written wholly in another script that looks Latin (Cyrillic `АСМЕ`) is one script and passes:
 * the payee's `id` beside it is ASCII.
 * @see Unicode UTS #39 §5.1–5.2 (mixed-script detection, restriction levels)
 */
export function displayName(max: number) {
  return displayText(max).superRefine((name, ctx) => {
    const problem = lookAlikeProblem(name) ?? mixedScriptProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * Text of several lines shown to the person exactly as it will be sent (a message's body): each
 * line in the canonical form of display text (NFC, each run of spaces as one U+0020, as in
 * {@link canonicalText}, and no space at its end), CR LF and CR read as LF, no blank lines at either end, at most
 * `maxLines` lines and `max` characters (code points, line feeds included) in all, counted in that form. Refused like display text: whatever a
 * person cannot see (the line feed is the one control allowed), runs of combining marks.
 * @see docs/design.md guarantees 2–3; Unicode UTS #39 §5
 */
export function displayLines(max: number, maxLines: number) {
  return z
    .string()
    .transform((text) =>
      text
        .normalize('NFC')
        .replace(/\r\n?/g, '\n')
        .split('\n')
        .map((line) => line.replace(/\p{Zs}+/gu, ' ').trimEnd())
        .join('\n')
        .replace(/^\n+|\n+$/g, ''),
    )
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(max, `must be at most ${max} characters`)
        .superRefine((text, ctx) => {
          const lines = text.split('\n');
          if (lines.length > maxLines) return void ctx.addIssue({ code: 'custom', message: `must be at most ${maxLines} lines` });
          for (const line of lines) {
            const problem = unseenProblem(line);
            if (problem) return void ctx.addIssue({ code: 'custom', message: problem });
          }
        }),
    );
}

/** An identifier: 1 to `max` of letters, digits and `._:-`. */
export function identifier(max = 64) {
  return z.string().regex(/^[A-Za-z0-9._:-]+$/, 'may hold only letters, digits and ._:-').min(1).max(max);
}

const NOT_ASCII_DIGIT = /(?![0-9])\p{N}/u;
const BINDING_CHARACTERS = /^[\p{L}\p{M}0-9 .,:;!?'"()\-_/#@&+*%=]+$/u;

/**
 * `binding_message` (CIBA Core §7.1): at most 64 characters of letters, ASCII digits, spaces and
 * common punctuation, in the canonical form of display text ({@link canonicalText}: NFC, one U+0020
 * for each run of spaces, trimmed), which is what is stored and shown; one that is empty in that
 * form (`"   "`) is refused, as the phone would show a blank where the agent's message belongs.
 * Emoji and control characters are refused (docs/design.md "HTTP surface", `binding_message`), and
 * so are what a person cannot see (Hangul fillers are letters to Unicode) and runs of combining
 * marks, as in display text. Digits must be ASCII: the message is how the person matches the
 * agent's screen to the phone's, and Arabic-Indic `٣` or fullwidth `３` are other characters that
 * read as other numbers, or as the same one.
 * @see CIBA Core 1.0 §7.1 (binding_message); Unicode UTS #39 §5
 */
export const bindingMessage = z
  .string()
  .transform(canonicalText)
  .pipe(
    z
      .string()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .superRefine((text, ctx) => {
        const problem = unseenProblem(text);
        const digit = NOT_ASCII_DIGIT.exec(text);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
        else if (digit) ctx.addIssue({ code: 'custom', message: `must write numbers with the ASCII digits 0-9 (${codePointName(digit[0])} is another digit)` });
        else if (!BINDING_CHARACTERS.test(text)) ctx.addIssue({ code: 'custom', message: 'may hold only letters, digits, spaces and common punctuation' });
      }),
  );
