const COUNT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });

/** A count as a person reads it, grouped: `12,000`. */
export function countText(count: number): string {
  return COUNT.format(count);
}

/** `1 record`, `12,000 records`: a count and the noun in the number it takes. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${countText(count)} ${count === 1 ? one : many}`;
}

/** How many ids of a list a display names before "and N more". */
export const NAMED_IDS_SHOWN = 5;

/** The first {@link NAMED_IDS_SHOWN} of `names`, then "and N more" for the rest of `total`. */
export function firstFew(names: readonly string[], total: number): { shown: string[]; more: number; text: string } {
  const shown = names.slice(0, NAMED_IDS_SHOWN);
  const more = Math.max(0, total - shown.length);
  return { shown, more, text: more > 0 ? `${shown.join(', ')} and ${countText(more)} more` : shown.join(', ') };
}
