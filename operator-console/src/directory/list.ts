// What the directory's two lists (clients, users) share: the query of a page, and a refusal shown
// in the list's error line.
import { describeError } from '../api.ts';
import { $, $value } from '../dom.ts';
import { handleAuthError } from '../session.ts';
import { currentTenant } from '../tenant.ts';

/** `tenant=…&q=…&cursor=…` of one list: `field` is its search box, `cursor` the `next_cursor` of the page before (null for the first). */
export function listQuery(field: string, cursor: string | null): string {
  const query = new URLSearchParams({ tenant: currentTenant() });
  const q = $value(field).value.trim();
  if (q) query.set('q', q);
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

/** `?tenant=…` of a call about one item of the tenant. */
export function tenantQuery(): string {
  return `tenant=${encodeURIComponent(currentTenant())}`;
}

/** Shows a refusal in a list's error line, unless it sent the operator back to sign in. */
export function fail(errorId: string, error: unknown): void {
  if (!handleAuthError(error)) $(errorId).textContent = describeError(error);
}

/** Puts a page's rows into the list `listId` (after the rows shown when `more`), and shows its "next page" and "none" lines. */
export function showPage(listId: string, rows: HTMLElement[], more: boolean, nextCursor: string | null): void {
  if (more) $(listId).append(...rows);
  else $(listId).replaceChildren(...rows);
  $(`${listId}-more`).hidden = !nextCursor;
  $(`${listId}-empty`).hidden = $(listId).children.length > 0;
}
