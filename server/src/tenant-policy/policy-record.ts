import { keys, type RecordStore } from '../store/index.ts';

/** Who made a revision and when (epoch ms). */
export interface RevisionMeta {
  updated_at: number;
  updated_by: string;
}

/**
 * One revision of a tenant's policy as stored: the validated policy's JSON, or null when this
 * revision went back to the server's default (`DELETE`). Revision 0 is the default, never written.
 */
export interface StoredRevision {
  revision: number;
  document: string | null;
  meta: RevisionMeta | null;
}

/** The hash field of revision `n`'s policy JSON (empty: the default). */
const documentField = (revision: number) => `r:${revision}`;
/** The hash field of revision `n`'s {@link RevisionMeta} (JSON). */
const metaField = (revision: number) => `m:${revision}`;

/**
 * The tenant's current policy revision: 0 when it never had a policy of its own. One HGET, so a
 * new request can check it on every creation (another instance may have changed it).
 */
export async function readRevision(store: Pick<RecordStore, 'hashGetField'>, tenant: string): Promise<number> {
  const value = await store.hashGetField(keys.tenantPolicy(tenant), 'revision');
  return value === null ? 0 : Number(value);
}

/**
 * Revision `revision` of the tenant's policy. Revisions are written once and never change, so what
 * this answers may be cached for good. Revision 0 is the default without a read.
 *
 * @throws Error when the store holds no such revision (a revision the tenant never had, or a
 *   store that lost the record): rating a request under a guessed policy would be worse than failing.
 */
export async function readStoredRevision(store: Pick<RecordStore, 'hashGetField'>, tenant: string, revision: number): Promise<StoredRevision> {
  if (revision === 0) return { revision, document: null, meta: null };
  const key = keys.tenantPolicy(tenant);
  const [document, meta] = await Promise.all([store.hashGetField(key, documentField(revision)), store.hashGetField(key, metaField(revision))]);
  if (document === null) throw new Error(`tenant ${tenant} has no policy revision ${revision} in the store`);
  return { revision, document: document === '' ? null : document, meta: meta ? (JSON.parse(meta) as RevisionMeta) : null };
}

/**
 * Makes `expected + 1` the tenant's current revision, holding `document` (a validated policy's
 * JSON, or null for the server's default), in one compare-and-swap on `revision`
 * (`Store.compareAndSet`, one Lua script on Redis): of two operators changing the same revision,
 * exactly one succeeds. Answers false, writing nothing, when the current revision is not `expected`.
 *
 * The swap needs the record to exist: for the tenant's first revision, a field naming the tenant is
 * written first (idempotent, no TTL), and the guard is that `revision` is still absent.
 */
export async function swapRevision(store: Pick<RecordStore, 'hashSet' | 'compareAndSet'>, tenant: string, expected: number, document: string | null, meta: RevisionMeta): Promise<boolean> {
  const key = keys.tenantPolicy(tenant);
  if (expected === 0) await store.hashSet(key, { tenant });
  const next = expected + 1;
  const guard = expected === 0 ? ({ field: 'revision', op: 'absent' } as const) : ({ field: 'revision', op: 'eq', value: String(expected) } as const);
  const swapped = await store.compareAndSet(key, [guard], { revision: String(next), [documentField(next)]: document ?? '', [metaField(next)]: JSON.stringify(meta) });
  return swapped.ok;
}
