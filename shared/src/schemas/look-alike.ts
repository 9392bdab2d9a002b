import { codePointName } from './code-point-name.ts';

/**
 * Latin letters outside the blocks the Latin alphabets of living languages are written with:
 * IPA Extensions (U+0250–U+02AF: `ɑ` U+0251 and `ɡ` U+0261 look like `a` and `g`), Phonetic
 * Extensions and their Supplement (U+1D00–U+1DBF: the small capitals `ᴀᴄᴍᴇ`), Latin Extended-D
 * (U+A720–U+A7FF), Latin Extended-E (U+AB30–U+AB6F), Latin Extended-F (U+10780–U+107BF) and
 * Latin Extended-G (U+1DF00–U+1DFFF). Each is Latin script, so the one-script rule lets them
 * through, and NFKC leaves most of them alone, yet a person reads them as the plain letters they
 * copy. The letters of these blocks that UTS #39 lists as `Identifier_Status=Allowed` (in use in a
 * living orthography) are excepted: `ə` U+0259 (Azerbaijani), and the Latin Extended-D and -E ones
 * below. JavaScript's `\p{…}` has no `Identifier_Status`, hence the explicit list.
 * @see Unicode UTS #39 §3.1 (Identifier_Status, Identifier_Type), IdentifierStatus.txt
 */
const UNCOMMON_LATIN = /(?![\u0259\ua788\ua78d\ua792\ua793\ua7aa\ua7ae\ua7b8\ua7b9\ua7c0-\ua7ca\ua7d0\ua7d1\ua7d3\ua7d5-\ua7d9\uab66\uab67])[\u0250-\u02af\u1d00-\u1dbf\ua720-\ua7ff\uab30-\uab6f\u{10780}-\u{107bf}\u{1df00}-\u{1dfff}]/u;

/** A combining mark (Mn, Mc, Me) that does not follow a letter or another mark: it sits on a space, a digit or the start, or stands alone. */
const STRAY_MARK = /(?<![\p{L}\p{M}])\p{M}/u;

/**
 * Why a name, already canonical display text (NFC, one space per run, see `canonicalText`), holds a
 * letter that looks like another one of its own script, or null when it holds none:
 * - a compatibility character, one that NFKC changes: fullwidth `ＡＣＭＥ`, mathematical `𝐀𝐂𝐌𝐄`,
 *   circled `Ⓐ`, superscripts, ligatures `ﬁ`, halfwidth kana… (the name must be NFKC-stable, as
 *   UTS #39 identifiers are), each the same letter to a reader and another one to every compare;
 * - a combining mark that no letter carries: at the start of the name or of a word, where it
 *   draws over the space or the letter before it (`\u0301ACME`);
 * - a Latin letter of an uncommon block ({@link UNCOMMON_LATIN}): small capitals, IPA letters.
 * @returns the reason, naming the code point, or null.
 * @see Unicode UTS #39 §5 (restriction levels), UAX #15 §1.1 (compatibility equivalence)
 */
export function lookAlikeProblem(name: string): string | null {
  if (/^[\x20-\x7e]*$/.test(name)) return null;
  if (name.normalize('NFKC') !== name) {
    const changed = [...name].find((character) => character.normalize('NFKC') !== character);
    return `must not hold a compatibility character${changed ? ` (${codePointName(changed)})` : ''}, a fullwidth, styled or composed form that NFKC changes: write the plain letters`;
  }
  const stray = STRAY_MARK.exec(name);
  if (stray) return `must not start a word with a combining mark (${codePointName(stray[0])})`;
  const uncommon = UNCOMMON_LATIN.exec(name);
  if (uncommon) return `must not hold a phonetic or uncommon Latin letter (${codePointName(uncommon[0])}) that looks like a plain one`;
  return null;
}
