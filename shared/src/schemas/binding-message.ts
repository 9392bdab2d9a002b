import { z } from 'zod';
import { codePointName } from './code-point-name.ts';
import { canonicalText, unseenProblem } from './unseen-text.ts';

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
