/** Display lines: each line canonicalised as display text is, the line breaks kept, and lines and characters counted on the stored form. */
import { describe, expect, it } from 'vitest';
import { displayLines } from './text.ts';
import { outcome } from './text.test-support.ts';

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
