import { canonicalize } from '@countersign/shared';
import type { Fields, StreamEntry } from '../store/index.ts';
import type { ChainedAuditEvent, StoredAuditEvent } from './audit-event.ts';

/**
 * How one chained event sits in its tenant's stream. The hash covers the event's JCS text
 * (`chainText`), not these fields: a reader rebuilds the whole event from them, and the verifier
 * hashes what was rebuilt. So the stored form may leave out what the key already says and may
 * write members compactly, as long as every event rebuilds to exactly its text — which
 * {@link storedFields} checks before it chooses this form.
 *
 * Ten fields, always all of them and in this order, each empty when its member is absent:
 *
 * | field | member | written as |
 * |---|---|---|
 * | `t` | `type` | as is |
 * | `s` | `seq` | decimal |
 * | `p` | `prev_hash` | as is |
 * | `a` | `at` | epoch milliseconds, decimal (only when that gives back the same ISO 8601 text) |
 * | `r` | `auth_req_id` | as is |
 * | `c` | `client_id` | as is |
 * | `u` | `sub` | as is |
 * | `h` | `channel` | as is |
 * | `d` | `detail` | its JCS text; or, when its members are those of a {@link DETAIL_SHAPES} entry, each a string, number or boolean, that entry's code and the JSON array of their values |
 * | `x` | every other member (`reason`, `device_id`, `credential_id`…) and any member that does not fit its field (an empty string, one with a lone surrogate, an `at` that is not `toISOString`'s) | JCS of an object of them |
 *
 * `tenant` is not written: the stream key (`auditlog:{<tenant>}`) says it, and a reader takes it
 * from there. An entry moved to another tenant's stream thus rebuilds as that tenant's event with
 * another hash than the one its old successor holds, and the genesis hash binds a chain's first
 * event to its tenant: re-tenanting still breaks the chain.
 *
 * Why: Redis stores the field names of a stream entry only when they differ from the first entry
 * of its node (the "master entry"; `t_stream.c`, STREAM_ITEM_FLAG_SAMEFIELDS), so entries with the
 * same ten names cost their values only; an integer-looking value is stored as an integer in the
 * node's listpack. A `pushed` event takes about 200 bytes this way against 290 as JSON.
 */
const FIELDS = ['t', 's', 'p', 'a', 'r', 'c', 'u', 'h', 'd', 'x'] as const;
type Field = (typeof FIELDS)[number];

/**
 * The `detail`s most events carry, by their member names in JCS order. A detail of one of these
 * shapes is stored as the shape's code and the JSON array of its values (`P["iNNI…",300,false,
 * "customer","standard"]`, 75 bytes, against 140 for its JCS text): a `proposed` and a `pushed`
 * event are in every request's trail. Append-only: a code, once written, names its members for
 * good; a new shape takes a new code.
 */
const DETAIL_SHAPES: Readonly<Record<string, readonly string[]>> = {
  P: ['details_hash', 'expires_in', 'number_matching', 'parties', 'tier'],
  S: ['failed', 'removed', 'sent'],
  A: ['party', 'tier'],
  D: ['cause', 'party'],
  T: ['expires_in', 'jti'],
  R: ['redemption_id'],
  O: ['redemption_id', 'status'],
};
const SHAPE_OF = new Map(Object.entries(DETAIL_SHAPES).map(([code, members]) => [members.join(' '), code]));

/** A detail as `d` holds it: in its shape (see {@link DETAIL_SHAPES}) when it has one, else its JCS text. */
function detailText(detail: Record<string, unknown>): string {
  const members = Object.keys(detail).sort();
  const code = SHAPE_OF.get(members.join(' '));
  const values = members.map((member) => detail[member]);
  const plain = values.every((value) => typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)));
  return code && plain ? code + JSON.stringify(values) : canonicalize(detail);
}

/** The detail `d` holds (either form of {@link detailText}), or null when it holds none. */
function detailOf(text: string): Record<string, unknown> | null {
  const members = DETAIL_SHAPES[text.charAt(0)];
  if (!members) return parseObject(text);
  let values: unknown;
  try {
    values = JSON.parse(text.slice(1));
  } catch {
    return null;
  }
  if (!Array.isArray(values) || values.length !== members.length) return null;
  return Object.fromEntries(members.map((member, i) => [member, values[i]]));
}

/** The string members kept in a field of their own. */
const TEXT_FIELDS: Partial<Record<string, Field>> = { type: 't', prev_hash: 'p', auth_req_id: 'r', client_id: 'c', sub: 'u', channel: 'h' };
const MEMBER_OF: Partial<Record<Field, string>> = Object.fromEntries(Object.entries(TEXT_FIELDS).map(([member, field]) => [field, member]));

/** In a `u` regular expression a surrogate pair is one code point, so this finds only unpaired halves. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A plain object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Epoch ms of an ISO 8601 time when `toISOString` writes it back identically, else null. */
function isoMillis(at: unknown): number | null {
  if (typeof at !== 'string') return null;
  const ms = Date.parse(at);
  return Number.isSafeInteger(ms) && new Date(ms).toISOString() === at ? ms : null;
}

/** JSON text of an object, or null when it is not one. */
function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The stream fields that store one chained event of `tenant`'s chain: the compact form described
 * above, or — should it not rebuild to exactly `text` — the earlier form, one field `event` holding
 * `text` itself. Either way the reader ({@link storedEvent}) gives back an event whose JCS is `text`.
 *
 * @param event - the event as chained (`seq`, `prev_hash`; no store `id`).
 * @param tenant - the tenant of the stream it goes to.
 * @param text - its {@link chainText}, the bytes that are hashed.
 */
export function storedFields(event: ChainedAuditEvent, tenant: string, text: string): Fields {
  const fields = Object.fromEntries(FIELDS.map((field) => [field, ''])) as Record<Field, string>;
  const rest: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(event)) {
    const field = TEXT_FIELDS[member];
    if (value === undefined || member === 'id' || (member === 'tenant' && value === tenant)) continue;
    // A lone UTF-16 surrogate has no UTF-8 form: Redis would give back U+FFFD. JCS escapes it in `x`.
    if (field && typeof value === 'string' && value !== '' && !LONE_SURROGATE.test(value)) fields[field] = value;
    else if (member === 'seq' && Number.isSafeInteger(value) && (value as number) >= 0) fields.s = String(value);
    else if (member === 'at' && isoMillis(value) !== null) fields.a = String(isoMillis(value));
    else if (member === 'detail' && isObject(value)) fields.d = detailText(value);
    else rest[member] = value;
  }
  if (Object.keys(rest).length > 0) fields.x = canonicalize(rest);
  const rebuilt = compactEvent(fields, tenant);
  // The safety net: whatever this encoder misses, the hashed text is stored as it is.
  return rebuilt && canonicalize(rebuilt) === text ? fields : { event: text };
}

/** The event an entry of the compact form holds, or null when the entry is not one (or is malformed). */
function compactEvent(fields: Fields, tenant: string): ChainedAuditEvent | null {
  const names = Object.keys(fields);
  if (names.length !== FIELDS.length || !FIELDS.every((field) => Object.hasOwn(fields, field))) return null;
  const event = fields.x ? parseObject(fields.x) : {};
  if (!event) return null;
  // A member both in `x` and in its own field is no event this code wrote.
  const put = (member: string, value: unknown): boolean => {
    if (Object.hasOwn(event, member)) return false;
    event[member] = value;
    return true;
  };
  if (!Object.hasOwn(event, 'tenant')) event.tenant = tenant;
  for (const field of FIELDS) {
    const value = fields[field]!;
    if (value === '' || field === 'x') continue;
    const member = MEMBER_OF[field];
    let ok: boolean;
    if (member) ok = put(member, value);
    else if (field === 's') ok = /^(0|[1-9][0-9]{0,15})$/.test(value) && Number.isSafeInteger(Number(value)) && put('seq', Number(value));
    else if (field === 'a') {
      const ms = Number(value);
      // Date's range is ±8.64e15 ms; past it toISOString throws.
      ok = /^-?(0|[1-9][0-9]{0,15})$/.test(value) && Math.abs(ms) <= 8.64e15 && put('at', new Date(ms).toISOString());
    } else {
      const detail = detailOf(value);
      ok = detail !== null && put('detail', detail);
    }
    if (!ok) return null;
  }
  return typeof event.seq === 'number' ? (event as unknown as ChainedAuditEvent) : null;
}

/**
 * The chained event a stream entry of `tenant`'s chain holds, rebuilt whole (with `tenant` and
 * the entry's `id`), or null when the entry is not one. Reads both forms: the compact fields of
 * {@link storedFields}, and the earlier single `event` field holding the event's JSON (entries
 * written before the compact form, and any the compact form could not hold).
 */
export function storedEvent(entry: StreamEntry, tenant: string): StoredAuditEvent | null {
  if (Object.hasOwn(entry.fields, 'event')) {
    try {
      const event = JSON.parse(entry.fields.event!) as ChainedAuditEvent;
      return isObject(event) && typeof event.seq === 'number' ? { ...event, id: entry.id } : null;
    } catch {
      return null;
    }
  }
  const event = compactEvent(entry.fields, tenant);
  if (!event) return null;
  // Members in JCS order, then `id`, as an event parsed from its text reads (the admin view's JSON).
  const sorted = Object.fromEntries(
    Object.keys(event)
      .sort()
      .map((member) => [member, event[member as keyof ChainedAuditEvent]]),
  );
  return { ...(sorted as unknown as ChainedAuditEvent), id: entry.id };
}
