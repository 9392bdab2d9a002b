import { randomBytes } from 'node:crypto';
import { mapLimit } from '../countersign/api.ts';
import { startTwin } from './in-process.ts';

/** Audit events recorded per second, 32 at a time, three ways. */
export interface AuditChainResult {
  events: number;
  concurrency: number;
  /** `deps.audit.record` with every event in one tenant (one hash chain). */
  oneTenantPerSecond: number;
  /** The same events spread over 8 tenants (8 chains). */
  eightTenantsPerSecond: number;
  /** Plain appends of the same JSON lines to one stream (XADD, no chain), the store's own speed. */
  plainAppendsPerSecond: number;
}

/**
 * How fast the audit trail takes events when many requests record at once. Every gate decision
 * is awaited on its request's path (bc-authorize, the decision, token issuance, redeem), so this
 * rate caps them all. Measured on an in-process instance: its `deps.audit.record` for one tenant,
 * for eight, and the store's plain stream append as the reference.
 */
export async function measureAuditChain(redisUrl: string, policyFile: string | null): Promise<AuditChainResult> {
  const twin = await startTwin(redisUrl, 'bench-audit:', { policyFile });
  const events = 3000;
  const concurrency = 32;
  const event = (tenant: string) => ({
    type: 'viewed' as const,
    tenant,
    auth_req_id: randomBytes(32).toString('base64url'),
    client_id: 'cli_bench',
    sub: 'bench-user',
    device_id: 'dev_bench',
    channel: 'device' as const,
  });
  const rate = async (task: (i: number) => Promise<unknown>) => {
    const started = performance.now();
    await mapLimit(
      Array.from({ length: events }, (_, i) => i),
      concurrency,
      task,
    );
    return Math.round(events / ((performance.now() - started) / 1000));
  };
  // Warm-up: JIT, and each chain's head read once.
  await mapLimit(
    Array.from({ length: 200 }, (_, i) => i),
    concurrency,
    (i) => twin.deps.audit.record(event(`t${i % 8}`)),
  );
  await twin.deps.audit.record(event('default'));
  // Streams take no TTL: this one is deleted after the run.
  const plainKey = `bench:plain-appends:${randomBytes(8).toString('hex')}`;
  const oneTenantPerSecond = await rate(() => twin.deps.audit.record(event('default')));
  const eightTenantsPerSecond = await rate((i) => twin.deps.audit.record(event(`t${i % 8}`)));
  const plainAppendsPerSecond = await rate(() => {
    const line = JSON.stringify({ ...event('default'), at: new Date().toISOString(), seq: 1, prev_hash: 'x'.repeat(43) });
    return twin.store.streamAppend(plainKey, { line });
  });
  await twin.store.delete(plainKey);
  await twin.close();
  return { events, concurrency, oneTenantPerSecond, eightTenantsPerSecond, plainAppendsPerSecond };
}
