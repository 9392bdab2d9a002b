import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import type { IndexStore } from '../store/index.ts';

/** The most items one page of an operator's list holds (`limit`); 50 by default. */
export const MAX_PAGE_LIMIT = 200;
const DEFAULT_PAGE_LIMIT = 50;
/**
 * How many index members one page reads at most while searching (`q`): a search that matches
 * little answers a short page with a `next_cursor` rather than walking a whole tenant in one call.
 */
export const MAX_PAGE_SCAN = 1000;
const BATCH = 100;

/** The query of a paginated list: `limit`, `cursor` (opaque, from `next_cursor`) and `q`. */
export interface PageQuery {
  limit: number;
  /** What the cursor carries: the last index member the page before covered, or null for the first page. */
  after: string | null;
  /** Lower-cased search text, or null. */
  q: string | null;
}

/**
 * Reads `limit`, `cursor` and `q` from the query string.
 * @throws CountersignError `invalid_request` for a malformed limit, cursor or `q` (over 128 characters).
 */
export function readPageQuery(c: Context, options: { limitParam?: 'limit' | null } = {}): PageQuery {
  const rawLimit = options.limitParam === null ? undefined : c.req.query('limit');
  const limit = rawLimit === undefined ? DEFAULT_PAGE_LIMIT : Number(rawLimit);
  if (rawLimit !== undefined && (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_PAGE_LIMIT)) {
    throw new CountersignError('invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`);
  }
  const q = c.req.query('q');
  if (q !== undefined && q.length > 128) throw new CountersignError('invalid_request', 'q is longer than 128 characters.');
  return { limit, after: decodeCursor(c.req.query('cursor')), q: q ? q.toLowerCase() : null };
}

/** The opaque cursor of a page that ended after `member`: base64url, so callers do not build their own. */
export function encodeCursor(member: string): string {
  return Buffer.from(JSON.stringify({ after: member }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof value.after === 'string' && /^[A-Za-z0-9._:@-]{1,256}$/.test(value.after)) return value.after;
  } catch {
    // Falls through to the refusal.
  }
  throw new CountersignError('invalid_request', 'cursor is not one this server gave (use next_cursor as it is).');
}

/** Whether any of `fields` contains the search text (case-insensitive); true without one. */
export function matchesQuery(q: string | null, ...fields: Array<string | null | undefined>): boolean {
  return q === null || fields.some((field) => field?.toLowerCase().includes(q));
}

/**
 * One page of an index sorted set (`keys.tenantUsers`, `keys.tenantClients`) in byte order: the
 * members after the cursor are loaded in batches and kept when `keep` says so, until the page is
 * full or {@link MAX_PAGE_SCAN} members were read. A member whose record is gone (`load` answers
 * null) is skipped.
 *
 * @returns the items, and `next_cursor` (null once the index has no more members).
 */
export async function pageIndex<T>(store: IndexStore, key: string, query: PageQuery, load: (member: string) => Promise<T | null>, keep: (item: T) => boolean): Promise<{ items: T[]; next_cursor: string | null }> {
  const items: T[] = [];
  let after = query.after;
  let scanned = 0;
  for (;;) {
    const batch = await store.sortedRangeAfter(key, after, Math.min(BATCH, MAX_PAGE_SCAN - scanned));
    const loaded = await Promise.all(batch.map(load));
    for (const [i, member] of batch.entries()) {
      after = member;
      scanned += 1;
      const item = loaded[i];
      if (item !== null && item !== undefined && keep(item)) items.push(item);
      if (items.length === query.limit || scanned === MAX_PAGE_SCAN) {
        // One more member read tells a last full page from one with more after it.
        const more = (await store.sortedRangeAfter(key, member, 1)).length > 0;
        return { items, next_cursor: more ? encodeCursor(member) : null };
      }
    }
    if (batch.length < BATCH) return { items, next_cursor: null };
  }
}

/** Epoch ms as an RFC 3339 string, or null. */
export function rfc3339(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
