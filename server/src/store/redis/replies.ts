/** Reading the Redis store's replies: field/value lists and error codes. */
import type { Fields } from '../types.ts';

/** The first word of a Redis error reply (`NOGROUP`, `BUSYGROUP`), or null for any other error. */
export function replyCode(error: unknown): string | null {
  return error instanceof Error && error.name === 'ReplyError' ? (/^([A-Z]+)\b/.exec(error.message)?.[1] ?? null) : null;
}

export function toFields(flat: string[]): Fields {
  const fields: Fields = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}
