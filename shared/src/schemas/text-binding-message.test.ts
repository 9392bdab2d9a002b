/** Binding messages: what a binding message may hold and the reason each refusal gives. */
import { describe, expect, it } from 'vitest';
import { bindingMessage } from './text.ts';
import { outcome } from './text.test-support.ts';

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
