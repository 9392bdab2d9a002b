import type { HistoryEntry } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { historyKey, readEntries } from './record-history.ts';

/**
 * The caller's history (`GET /api/device/history`): the requests they decided, were asked and let
 * expire, or approved as a reviewer, newest first, at most 50, each with its state and outcome as
 * last recorded. A pending or approved entry whose deadline has passed reads `expired` even before
 * anything wrote that down (an approval nobody redeems is only settled when someone looks at it).
 */
export async function listHistory(deps: Pick<Deps, 'store' | 'clock'>, session: { tenant: string; sub: string }): Promise<HistoryEntry[]> {
  const now = deps.clock.now();
  const entries = readEntries((await deps.store.hashGet(historyKey(session.tenant, session.sub))) ?? {});
  return entries.map(({ deadline, ...entry }) => ({
    ...entry,
    state: (entry.state === 'pending' || entry.state === 'approved') && now >= deadline ? 'expired' : entry.state,
  }));
}
