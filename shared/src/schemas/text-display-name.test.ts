/** Display names: the names accepted as sent and those refused, each with the reason the refusal gives. */
import { describe, expect, it } from 'vitest';
import { displayName } from './text.ts';
import { outcome } from './text.test-support.ts';

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
