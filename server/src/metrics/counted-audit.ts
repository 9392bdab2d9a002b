import type { AuditLog } from '../audit/index.ts';
import type { Metrics } from './metrics.ts';

/**
 * The audit log, counting each event it records in `countersign_gate_events_total{type, reason,
 * channel}`: every gate decision is an audit event, so the counter is the gate's decisions by kind
 * and refusals by reason code, without a second call at each decision. Counted once recorded; an
 * outbox entry delivered twice (recorded once) may count twice, which a rate does not notice.
 */
export function countedAudit(audit: AuditLog, metrics: Metrics): AuditLog {
  return {
    ...audit,
    async record(event, options) {
      await audit.record(event, options);
      metrics.gateEvents.inc({ type: event.type, reason: event.reason ?? '', channel: event.channel });
    },
  };
}
