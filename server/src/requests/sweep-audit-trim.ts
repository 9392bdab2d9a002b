import type { Deps } from '../deps.ts';

/**
 * The audit retention as the sweep runs it (`AuditLog.trim`): a function that trims when
 * `retentionEveryMs` of the clock have passed since it last did (the first call does), and logs
 * what it trimmed; its failure is logged, never thrown.
 */
export function createAuditTrim(retentionEveryMs: number): (current: Pick<Deps, 'clock' | 'audit' | 'log'>) => Promise<void> {
  /** When (the clock's ms) the audit retention runs next. */
  let nextTrimAt = Number.NEGATIVE_INFINITY;

  /**
   * The audit retention, under the sweep's lease, at most every `retentionEveryMs`. A chain whose old
   * end does not verify is left as it is and logged: the trim keeps the evidence for `audit verify`.
   */
  return async function trimAudit(current: Pick<Deps, 'clock' | 'audit' | 'log'>): Promise<void> {
    const now = current.clock.now();
    if (now < nextTrimAt) return;
    nextTrimAt = now + retentionEveryMs;
    try {
      for (const report of await current.audit.trim()) {
        if (report.stopped) current.log.error('audit retention stopped at a link that does not verify', { tenant: report.tenant, trimmed: report.trimmed, reason: report.stopped });
        else if (report.trimmed > 0) current.log.info('audit retention trimmed', { tenant: report.tenant, trimmed: report.trimmed, anchor_seq: report.anchor?.seq ?? null });
      }
    } catch (error) {
      current.log.error('audit retention failed', { error: String(error) });
    }
  };
}
