/**
 * Where a command writes: stdout for results, stderr for people (notes, QR codes, warnings).
 *
 * Results follow the convention of `gh` and friends: on a terminal, aligned columns with a
 * header; piped into another program, tab-separated fields, one record per line, no header, so
 * `cut -f1` and `while IFS=$'\t' read …` work even when a field holds spaces. `--json` is there
 * for anything more.
 */
export interface Output {
  /** Whether stdout is a terminal (a person reads it) or a pipe or file (a program does). */
  tty: boolean;
  out(line: string): void;
  err(line: string): void;
}

type Cell = string | number | null | undefined;

/** One field per line: `key  value` aligned on a terminal, `key<TAB>value` otherwise; empty fields left out. */
export function keyValueLines(entries: Array<[string, Cell]>, tty: boolean): string[] {
  const shown = entries.filter(([, value]) => value !== undefined && value !== null && value !== '');
  if (!tty) return shown.map(([key, value]) => `${key}\t${clean(value)}`);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${clean(value)}`);
}

/**
 * A table: on a terminal a header and columns aligned by spaces (the last column unpadded, for
 * free text); otherwise the rows alone, tab-separated.
 */
export function tableLines(header: string[], rows: Cell[][], tty: boolean): string[] {
  const cells = rows.map((row) => row.map(clean));
  if (!tty) return cells.map((row) => row.join('\t'));
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

/** Seconds as `4m 05s`, `45s`, `0s`. */
export function formatSeconds(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${minutes}m ${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/**
 * A field made safe for one line of a terminal: tabs and line breaks become spaces, and other
 * control characters (an escape sequence in a client's name could rewrite the operator's screen)
 * are dropped.
 */
function clean(value: Cell): string {
  if (value === null || value === undefined) return '';
  return String(value)
    .replace(/[\t\r\n\u2028\u2029]+/g, ' ')
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, '');
}
