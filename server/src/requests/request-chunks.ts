import type { Fields } from '../store/index.ts';

/**
 * The hash field that keeps the client's `client_notification_token` (CIBA Core §7.1) next to the
 * request. It is a bearer secret, so it is deliberately not a member of `ApprovalRequest`:
 * whatever serialises a request (the admin view, a log line, the audit) cannot carry it. Only the
 * notifier reads it, with `notificationTokenOf` (`request-fields.ts`).
 */
export const NOTIFICATION_TOKEN_FIELD = 'notification_token';

/**
 * The longest value, in UTF-8 bytes, that keeps a request's hash in Redis's compact encoding: a hash
 * with any value longer than `hash-max-listpack-value` (64 by default) becomes a hashtable, about
 * twice the memory (issue: memory per pending request).
 */
export const FIELD_CHUNK_BYTES = 64;

/**
 * The fields written once, at creation, that may be longer than {@link FIELD_CHUNK_BYTES}: such a
 * value is stored in chunks under a short name (`ad#0`, `ad#1`, …, see `CHUNK_NAME`; `<name>#0` before)
 * and no field `<name>`, so a reader that looks
 * at the raw field finds nothing rather than a truncated value. Only write-once fields: a later
 * compare-and-swap of a field that had chunks could leave stale ones behind.
 */
export const SPLIT_FIELDS = ['authorization_details', 'client_name', 'binding_message', 'parties', 'code_candidates', 'escalation', NOTIFICATION_TOKEN_FIELD] as const;

/**
 * The short name a split value's chunks are written under (`ad#0`, `ad#1`, …): a chunk's name is
 * stored in every request, and `authorization_details#0` alone is 23 bytes. Chunks written under the
 * long name (`authorization_details#0`, before the short names) are read as well.
 */
const CHUNK_NAME: Record<(typeof SPLIT_FIELDS)[number], string> = {
  authorization_details: 'ad',
  client_name: 'cn',
  binding_message: 'bm',
  parties: 'pa',
  code_candidates: 'cc',
  escalation: 'es',
  [NOTIFICATION_TOKEN_FIELD]: 'nt',
};

/** UTF-8 bytes of one code point (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Bytes(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * `value` in pieces of at most `maxBytes` UTF-8 bytes each, cut between code points (never inside a
 * character), that join back to `value`.
 */
export function splitUtf8(value: string, maxBytes = FIELD_CHUNK_BYTES): string[] {
  const chunks: string[] = [];
  let [start, bytes, at] = [0, 0, 0];
  for (const char of value) {
    const size = utf8Bytes(char.codePointAt(0)!);
    if (bytes + size > maxBytes) {
      chunks.push(value.slice(start, at));
      [start, bytes] = [at, 0];
    }
    bytes += size;
    at += char.length;
  }
  chunks.push(value.slice(start));
  return chunks;
}

/** The fields of one write-once value: itself when short, else its chunks under its short name (see {@link SPLIT_FIELDS}). */
export function chunked(name: (typeof SPLIT_FIELDS)[number], value: string): Fields {
  if (Buffer.byteLength(value, 'utf8') <= FIELD_CHUNK_BYTES) return { [name]: value };
  return Object.fromEntries(splitUtf8(value).map((chunk, i) => [`${CHUNK_NAME[name]}#${i}`, chunk]));
}

/** A write-once value read back: the field itself, or its chunks joined in order (short name, else long), or undefined. */
export function joined(fields: Fields, name: (typeof SPLIT_FIELDS)[number]): string | undefined {
  if (fields[name] !== undefined) return fields[name];
  const prefix = [CHUNK_NAME[name], name].find((candidate) => fields[`${candidate}#0`] !== undefined);
  if (prefix === undefined) return undefined;
  let value = '';
  for (let i = 0; fields[`${prefix}#${i}`] !== undefined; i++) value += fields[`${prefix}#${i}`];
  return value;
}
