/** `U+3164`: how a refusal names a code point (descriptions are ASCII, so the character itself cannot be quoted). */
export function codePointName(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
