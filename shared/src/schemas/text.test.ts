import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { bindingMessage, displayLines, displayName, displayText, toDisplayText } from './text.ts';

/** The stored value, or the refusal's message. */
function outcome(schema: z.ZodType, input: string): { value: unknown } | { refused: string } {
  const parsed = schema.safeParse(input);
  return parsed.success ? { value: parsed.data } : { refused: parsed.error.issues[0]!.message };
}

// [input, what is stored] — display text is canonicalised, not refused, for what a person sees the same.
const ACCEPTED_TEXT: [string, string, string][] = [
  ['plain ASCII', 'ACME Ltd', 'ACME Ltd'],
  ['spaces at either end, trimmed', '  ACME Ltd ', 'ACME Ltd'],
  ['a run of spaces, as one', 'ACME  Ltd', 'ACME Ltd'],
  ['a no-break space, as a space', 'ACME\u00a0Ltd', 'ACME Ltd'],
  ['an em space and an ideographic space, as spaces', 'ACME\u2003Ltd\u3000Co', 'ACME Ltd Co'],
  ['NFD, as NFC', 'Zoe\u0308 Cafe\u0301', 'Zo\u00eb Caf\u00e9'],
  ['Vietnamese', 'Nguy\u1ec5n V\u0103n An', 'Nguy\u1ec5n V\u0103n An'],
  ['Devanagari with a virama and vowel signs', '\u0939\u093f\u0928\u094d\u0926\u0940', '\u0939\u093f\u0928\u094d\u0926\u0940'],
  ['pointed Hebrew (three marks on one letter)', '\u05e9\u05c1\u05b8\u05bc\u05dc\u05d5\u05b9\u05dd', '\u05e9\u05c1\u05b8\u05bc\u05dc\u05d5\u05b9\u05dd'.normalize('NFC')],
  ['a Tibetan stack', '\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56\u0f66', '\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56\u0f66'],
  ['an emoji without a joiner or selector', 'Refund \u{1F600}', 'Refund \u{1F600}'],
];

// [input, the reason the refusal gives]
const REFUSED_TEXT: [string, string, string][] = [
  ['nothing but spaces', ' \u00a0 ', 'must not be empty'],
  ['a Hangul filler (U+3164)', 'ACME\u3164Ltd', 'must not hold an invisible or filler character (U+3164)'],
  ['a Hangul choseong filler (U+115F)', '\u115fACME', 'must not hold an invisible or filler character (U+115F)'],
  ['a Hangul jungseong filler (U+1160)', 'ACME\u1160', 'must not hold an invisible or filler character (U+1160)'],
  ['a halfwidth Hangul filler (U+FFA0)', 'AC\uffa0ME', 'must not hold an invisible or filler character (U+FFA0)'],
  ['a braille blank (U+2800)', 'ACME\u2800Ltd', 'must not hold an invisible or filler character (U+2800)'],
  ['a Mongolian vowel separator (U+180E)', 'ACME\u180eLtd', 'must not hold an invisible or filler character (U+180E)'],
  ['a zero-width space', 'AC\u200bME', 'must not hold an invisible or filler character (U+200B)'],
  ['a soft hyphen', 'AC\u00adME', 'must not hold an invisible or filler character (U+00AD)'],
  ['a variation selector', 'ACME\ufe0f', 'must not hold an invisible or filler character (U+FE0F)'],
  ['a tag character', 'ACME\u{E0041}', 'must not hold an invisible or filler character (U+E0041)'],
  ['the replacement character', 'ACME\ufffd', 'must not hold an invisible or filler character (U+FFFD)'],
  ['a right-to-left override', 'ACME\u202eLtd', 'must not hold a bidirectional control (U+202E)'],
  ['a right-to-left isolate', 'ACME\u2067Ltd', 'must not hold a bidirectional control (U+2067)'],
  ['the Arabic letter mark', 'ACME\u061cLtd', 'must not hold a bidirectional control (U+061C)'],
  ['an Arabic number sign, a visible format character', '\u0600 12', 'must not hold a format character (U+0600)'],
  ['a line feed inside', 'ACME\nLtd', 'must not hold a control character (U+000A)'],
  ['a line separator', 'ACME\u2028Ltd', 'must not hold a line or paragraph separator (U+2028)'],
  ['a private-use character', 'ACME\ue000', 'must not hold a private-use character (U+E000)'],
  ['an unassigned code point', 'ACME\u0378', 'must not hold an unassigned code point (U+0378)'],
  ['a lone surrogate', 'ACME\ud800', 'must not hold a lone surrogate (U+D800)'],
  ['five marks stacked on one letter (Zalgo)', 'Z\u0336\u0334\u0337\u0335\u0338algo', 'must not put more than 4 combining marks on one character (at U+0336)'],
  ['one accent twice, hidden by NFC', 'e\u0301\u0301', 'must not repeat a combining mark (U+0301 twice in a row)'],
];

describe('displayText', () => {
  it.each(ACCEPTED_TEXT)('accepts %s', (_name, input, stored) => {
    expect(outcome(displayText(140), input)).toEqual({ value: stored });
  });
  it.each(REFUSED_TEXT)('refuses %s', (_name, input, reason) => {
    expect(outcome(displayText(140), input)).toEqual({ refused: reason });
  });
  it('counts characters as code points of the canonical form', () => {
    expect(outcome(displayText(4), ' Cafe\u0301 ')).toEqual({ value: 'Caf\u00e9' });
    expect(outcome(displayText(3), '\u{1F600}'.repeat(3))).toEqual({ value: '\u{1F600}'.repeat(3) });
    expect(outcome(displayText(3), '\u{1F600}'.repeat(4))).toEqual({ refused: 'must be at most 3 characters' });
  });
});

const ACCEPTED_NAMES: [string, string][] = [
  ['Latin with digits and punctuation', 'ACME 42 & Co.'],
  ['Cyrillic', '\u0418\u0432\u0430\u043d\u043e\u0432 \u0438 \u043f\u0430\u0440\u0442\u043d\u0451\u0440\u044b'],
  ['Greek', '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ae \u0395\u03c4\u03b1\u03b9\u03c1\u03b5\u03af\u03b1'],
  ['Japanese: Latin, Han and Katakana', 'Sony \u30bd\u30cb\u30fc\u682a\u5f0f\u4f1a\u793e'],
  ['Korean: Latin, Hangul and Han', 'Samsung \uc0bc\uc131 \u96fb\u5b50'],
  ['Chinese: Han and Bopomofo', '\u4e2d\u83ef \u3109\u3128'],
  ['Arabic with Arabic-Indic digits', '\u0634\u0631\u0643\u0629 \u0663'],
  ['combining marks on their letters (NFD, stored as NFC)', 'Cafe\u0301 Zoe\u0308'],
  ['a mark with no precomposed form, on its letter', 'Ta\u0331ta\u0331 Ltd'],
  ['Devanagari vowel signs after their consonants', '\u0939\u093f\u0928\u094d\u0926\u0940 \u0915\u0902\u092a\u0928\u0940'],
  ['Azerbaijani schwa (U+0259, Allowed in UTS #39)', 'M\u0259mm\u0259dov MMC'],
  ['Turkish dotless i and Polish l with stroke', 'Y\u0131ld\u0131z \u0141\u00f3d\u017a'],
  ['a right single quotation mark, not a compatibility form', 'O\u2019Brien Ltd'],
];

const COMPATIBILITY = (codePoint: string) => `must not hold a compatibility character (${codePoint}), a fullwidth, styled or composed form that NFKC changes: write the plain letters`;

const REFUSED_NAMES: [string, string, string][] = [
  ['a Cyrillic a (U+0430) inside a Latin name', 'P\u0430yPal', 'must be written in one script: it mixes Latin and Cyrillic (U+0430)'],
  ['a Cyrillic capital E (U+0415) ending a Latin name', 'ACM\u0415 Ltd', 'must be written in one script: it mixes Latin and Cyrillic (U+0415)'],
  ['a Greek omicron (U+03BF) inside a Latin name', 'G\u03bfogle', 'must be written in one script: it mixes Latin and Greek (U+03BF)'],
  ['an Arabic-Indic digit in a Latin name', 'ACME \u0663', 'must be written in one script: it mixes Latin and Arabic (U+0663)'],
  ['Hangul with Katakana', '\uc0bc\uc131 \u30bd\u30cb\u30fc', 'must be written in one script: it mixes Hangul and Katakana (U+30BD)'],
  ['a script no name is written in (Cherokee)', 'ACME \u13aa', 'must be written in a script accepted in names (U+13AA is not)'],
  ['an invisible filler, before the script is looked at', 'ACME\u3164', 'must not hold an invisible or filler character (U+3164)'],
  // Look-alikes inside one script: the same letters to a reader, other code points to every compare.
  ['fullwidth letters', '\uff21\uff23\uff2d\uff25 Ltd', COMPATIBILITY('U+FF21')],
  ['mathematical bold letters', '\u{1D400}\u{1D402}\u{1D40C}\u{1D404} Ltd', COMPATIBILITY('U+1D400')],
  ['mathematical double-struck letters', 'ACME \u{1D543}\u{1D55D}\u{1D555}', COMPATIBILITY('U+1D543')],
  ['a circled letter', '\u24b6CME Ltd', COMPATIBILITY('U+24B6')],
  ['a ligature', 'E\ufb01nance Ltd', COMPATIBILITY('U+FB01')],
  ['a superscript letter', 'ACME\u1d38td', COMPATIBILITY('U+1D38')],
  ['a trade mark sign (NFKC: TM)', 'ACME\u2122 Ltd', COMPATIBILITY('U+2122')],
  ['halfwidth katakana', '\uff7f\uff86\uff70', COMPATIBILITY('U+FF7F')],
  ['a combining mark starting the name', '\u0301ACME Ltd', 'must not start a word with a combining mark (U+0301)'],
  ['a combining mark starting a word', 'ACME \u0308Ltd', 'must not start a word with a combining mark (U+0308)'],
  ['a combining mark on a digit', 'ACME 4\u20dd2', 'must not start a word with a combining mark (U+20DD)'],
  ['small capitals (Phonetic Extensions)', '\u1d00\u1d04\u1d0d\u1d07 Ltd', 'must not hold a phonetic or uncommon Latin letter (U+1D00) that looks like a plain one'],
  ['a Latin alpha (IPA Extensions)', '\u0251CME Ltd', 'must not hold a phonetic or uncommon Latin letter (U+0251) that looks like a plain one'],
  ['a script g (IPA Extensions)', 'Goo\u0261le Ltd', 'must not hold a phonetic or uncommon Latin letter (U+0261) that looks like a plain one'],
  ['a Latin Extended-D letter', 'ACME \ua77ftd', 'must not hold a phonetic or uncommon Latin letter (U+A77F) that looks like a plain one'],
  ['a Latin Extended-E letter', 'ACME \uab31td', 'must not hold a phonetic or uncommon Latin letter (U+AB31) that looks like a plain one'],
];

describe('displayName', () => {
  it.each(ACCEPTED_NAMES)('accepts %s', (_name, input) => {
    expect(outcome(displayName(140), input)).toEqual({ value: input.normalize('NFC') });
  });
  it.each(REFUSED_NAMES)('refuses %s', (_name, input, reason) => {
    expect(outcome(displayName(140), input)).toEqual({ refused: reason });
  });
});

describe('bindingMessage', () => {
  it.each([
    ['ASCII', 'Order 1042'],
    ['other letters with ASCII digits', '\u0417\u0430\u043a\u0430\u0437 42: f\u00fcr M\u00fcller'],
  ])('accepts %s', (_name, input) => {
    expect(outcome(bindingMessage, input)).toEqual({ value: input });
  });
  it.each([
    ['spaces at either end and runs of them, as display text', '  Order    1042  ', 'Order 1042'],
    ['a no-break and an em space, as spaces', 'Order\u00a01042\u2003now', 'Order 1042 now'],
    ['NFD, as NFC', 'Cafe\u0301 42', 'Caf\u00e9 42'],
  ])('stores %s', (_name, input, stored) => {
    expect(outcome(bindingMessage, input)).toEqual({ value: stored });
  });
  it.each([
    ['Arabic-Indic digits', 'Order \u0661\u0660\u0664\u0662', 'must write numbers with the ASCII digits 0-9 (U+0661 is another digit)'],
    ['fullwidth digits', 'Order \uff14\uff12', 'must write numbers with the ASCII digits 0-9 (U+FF14 is another digit)'],
    ['Devanagari digits', 'Order \u096a\u096b', 'must write numbers with the ASCII digits 0-9 (U+096A is another digit)'],
    ['a superscript two', 'Order 4\u00b2', 'must write numbers with the ASCII digits 0-9 (U+00B2 is another digit)'],
    ['a Hangul filler, which Unicode counts as a letter', 'Order\u3164 42', 'must not hold an invisible or filler character (U+3164)'],
    ['a run of combining marks', 'Order 4\u0336\u0334\u0337\u0335\u03382', 'must not put more than 4 combining marks on one character (at U+0336)'],
    ['a right-to-left override', 'Order \u202e24', 'must not hold a bidirectional control (U+202E)'],
    ['an emoji', 'Order 42 \u{1F4B8}', 'may hold only letters, digits, spaces and common punctuation'],
    ['nothing but spaces', '   ', 'must not be empty'],
    ['nothing but a no-break space', '\u00a0', 'must not be empty'],
    ['65 characters', 'a'.repeat(65), 'must be at most 64 characters'],
  ])('refuses %s', (_name, input, reason) => {
    expect(outcome(bindingMessage, input)).toEqual({ refused: reason });
  });
});

describe('toDisplayText', () => {
  it('turns what a person cannot see into spaces and drops stacked marks, so an outcome report is not refused', () => {
    expect(toDisplayText(' Failed:\u202e\u200b timeout\n')).toBe('Failed: timeout');
    expect(toDisplayText('Z\u0336\u0334\u0337\u0335\u0338 down')).toBe('Z down');
    for (const input of [...REFUSED_TEXT.map(([, text]) => text), 'ok']) {
      const cleaned = toDisplayText(input);
      if (cleaned) expect(outcome(displayText(500), cleaned)).toEqual({ value: cleaned });
    }
  });
});

// [input, what is stored] — each line canonicalised as display text is, the line breaks kept.
const ACCEPTED_LINES: [string, string, string][] = [
  ['one line, as it is', 'Hello Ana', 'Hello Ana'],
  ['CR LF and a lone CR, as LF', 'Hello\r\nAna\rBye', 'Hello\nAna\nBye'],
  ['blank lines inside, kept', 'Hello\n\n\nBye', 'Hello\n\n\nBye'],
  ['blank lines at either end (spaces alone count as blank), dropped', '\r\n  \nHello\n\u00a0\n\n', 'Hello'],
  ['spaces at the end of a line, dropped', 'Hello  \nAna\u00a0\nBye\u3000', 'Hello\nAna\nBye'],
  ['a run of spaces in a line, as one, at its start too', '  Dear   Ana,\n\u2003\u2003Bye', ' Dear Ana,\n Bye'],
  ['NFD, as NFC, on each line', 'Cafe\u0301\nZoe\u0308', 'Caf\u00e9\nZo\u00eb'],
  ['an emoji and other scripts', 'Danke \u{1F600}\n\u0421\u043f\u0430\u0441\u0438\u0431\u043e', 'Danke \u{1F600}\n\u0421\u043f\u0430\u0441\u0438\u0431\u043e'],
];

// [input, the reason the refusal gives]
const REFUSED_LINES: [string, string, string][] = [
  ['nothing but spaces and line breaks', ' \r\n\u00a0\n ', 'must not be empty'],
  ['a tab: the line feed is the one control allowed', 'Price:\t5 EUR', 'must not hold a control character (U+0009)'],
  ['a vertical tab', 'Hello\u000bAna', 'must not hold a control character (U+000B)'],
  ['a next-line control (U+0085)', 'Hello\u0085Ana', 'must not hold a control character (U+0085)'],
  ['an escape, on the second line', 'Hello\n\u001b[2JAna', 'must not hold a control character (U+001B)'],
  ['a line separator', 'Hello\u2028Ana', 'must not hold a line or paragraph separator (U+2028)'],
  ['a right-to-left override, on the second line', 'Hello\nPay \u202e0001', 'must not hold a bidirectional control (U+202E)'],
  ['a zero-width space', 'Hello\nA\u200bna', 'must not hold an invisible or filler character (U+200B)'],
  ['a Hangul filler', 'Hello\n\u3164', 'must not hold an invisible or filler character (U+3164)'],
  ['five marks stacked on one letter (Zalgo)', 'Hello\nZ\u0336\u0334\u0337\u0335\u0338algo', 'must not put more than 4 combining marks on one character (at U+0336)'],
];

describe('displayLines', () => {
  it.each(ACCEPTED_LINES)('accepts %s', (_name, input, stored) => {
    expect(outcome(displayLines(500, 20), input)).toEqual({ value: stored });
  });
  it.each(REFUSED_LINES)('refuses %s', (_name, input, reason) => {
    expect(outcome(displayLines(500, 20), input)).toEqual({ refused: reason });
  });

  it('counts lines after canonicalising: blank lines at the end do not count', () => {
    const three = displayLines(100, 3);
    expect(outcome(three, 'a\nb\nc')).toEqual({ value: 'a\nb\nc' });
    expect(outcome(three, 'a\r\nb\r\nc\r\n\r\n \n')).toEqual({ value: 'a\nb\nc' });
    expect(outcome(three, 'a\n\nb\nc')).toEqual({ refused: 'must be at most 3 lines' });
  });

  it('counts characters (code points, line feeds included) of the stored form, not as sent', () => {
    const twenty = displayLines(20, 10);
    const stored = `${'x'.repeat(9)}\n${'y'.repeat(10)}`;
    expect(outcome(twenty, stored)).toEqual({ value: stored });
    expect(outcome(twenty, `${'x'.repeat(9)}   \r\n${'y'.repeat(10)}  `)).toEqual({ value: stored });
    expect(outcome(twenty, `${stored}y`)).toEqual({ refused: 'must be at most 20 characters' });
    // zod measures a string in code points: an emoji outside the BMP is one character, two UTF-16 units.
    expect(outcome(twenty, '\u{1F600}'.repeat(20))).toEqual({ value: '\u{1F600}'.repeat(20) });
    expect(outcome(twenty, '\u{1F600}'.repeat(21))).toEqual({ refused: 'must be at most 20 characters' });
  });
});
