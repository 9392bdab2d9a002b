import { z } from 'zod';

/**
 * Characters that let a text show something other than what it holds: C0/C1 controls (Cc); every
 * format character (Cf): bidirectional overrides, isolates and marks including the Arabic letter
 * mark (the "Trojan Source" attack, CVE-2021-42574), zero-width joiners, soft hyphens, the BOM and
 * invisible tag characters; lone surrogates (Cs); line and paragraph separators (Zl, Zp). A person
 * must see exactly the bytes they approve.
 */
const DECEPTIVE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/**
 * A string shown to the person who approves: NFC-normalised, trimmed, 1 to `max` characters,
 * with no control, bidirectional-override or zero-width characters.
 */
export function displayText(max: number) {
  return z
    .string()
    .transform((s) => s.normalize('NFC').trim())
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .max(max, `must be at most ${max} characters`)
        .refine((s) => !DECEPTIVE.test(s), 'must not hold control, bidirectional or zero-width characters'),
    );
}

/** An identifier: 1 to `max` of letters, digits and `._:-`. */
export function identifier(max = 64) {
  return z.string().regex(/^[A-Za-z0-9._:-]+$/, 'may hold only letters, digits and ._:-').min(1).max(max);
}

/**
 * `binding_message` (CIBA Core §7.1): at most 64 characters of letters, digits, spaces and
 * common punctuation after NFC; emoji and control characters are refused (DESIGN.md).
 */
export const bindingMessage = z
  .string()
  .transform((s) => s.normalize('NFC'))
  .pipe(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[\p{L}\p{M}\p{N} .,:;!?'"()\-_/#@&+*%=]+$/u, 'may hold only letters, digits, spaces and common punctuation'),
  );
