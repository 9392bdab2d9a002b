import { z } from 'zod';
import { lookAlikeProblem } from './look-alike.ts';
import { mixedScriptProblem } from './mixed-script.ts';
import { canonicalText, unseenProblem } from './unseen-text.ts';

export { bindingMessage } from './binding-message.ts';
export { mixedScriptProblem } from './mixed-script.ts';
export { canonicalText, MAX_COMBINING_MARKS, revealUnseen, toDisplayText, unseenProblem } from './unseen-text.ts';

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
  return z
    .string()
    .regex(/^[A-Za-z0-9._:-]+$/, 'may hold only letters, digits and ._:-')
    .min(1)
    .max(max);
}
