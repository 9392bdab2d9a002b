/** Display text: canonicalised rather than refused where a person sees the same, refused where they cannot see it; and toDisplayText for outcome reports. */
import { describe, expect, it } from 'vitest';
import { displayText, toDisplayText } from './text.ts';
import { outcome } from './text.test-support.ts';

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
