import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Buckets of request latency, seconds: from a cache hit to a slow Redis. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Buckets of the times people and push services take, seconds: from a push accepted at once to an approval after minutes. */
const FLOW_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The server's Prometheus metrics, in a registry of their own (one per app, so two instances in
 * one test process never share counters). Scraped at `GET /metrics` (docs/operations.md "Metrics").
 * Labels hold only bounded values: route patterns (never a path with ids), reason codes, event
 * types, push service host names, job kinds; never a user, client or request id.
 */
export interface Metrics {
  registry: Registry;
  /** `countersign_http_requests_total{method, route, status}`. */
  httpRequests: Counter<'method' | 'route' | 'status'>;
  /** `countersign_http_request_duration_seconds{method, route, status}`. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /**
   * `countersign_gate_events_total{type, reason, channel}`: every audit event, so every gate
   * decision (approved, denied, refused with its reason code, redeemed, spent, expired…). A rise
   * of one refusal reason on a flow that should pass is the gate misfiring.
   */
  gateEvents: Counter<'type' | 'reason' | 'channel'>;
  /** `countersign_push_sends_total{outcome, service}`: `sent | gone | failed | skipped`, by push service host. */
  pushSends: Counter<'outcome' | 'service'>;
  /** `countersign_request_to_push_seconds`: from `/bc-authorize` to the first push service accepting the push. */
  requestToPush: Histogram<string>;
  /** `countersign_approval_to_token_seconds`: from the approval to the agent getting its token. */
  approvalToToken: Histogram<string>;
  /** `countersign_job_retries_total{kind}`: background jobs scheduled again after a failure. */
  jobRetries: Counter<'kind'>;
  /** `countersign_store_errors_total{kind}`: Redis errors by kind (`timeout`, `lost`, `moved`, …), retried ones too. */
  storeErrors: Counter<'kind'>;
  /** `countersign_job_queue_depth`: jobs queued or running (read at each scrape). */
  jobQueueDepth: Gauge<string>;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Read at each scrape: jobs queued or running, or null when it cannot be read now. */
  queueDepth?: () => Promise<number | null>;
  /** Adds Node.js process metrics (`process_*`, `nodejs_*`); on by default. */
  processMetrics?: boolean;
}

/**
 * Creates the metrics and their registry.
 * @see Prometheus exposition format 0.0.4 (prom-client's `registry.metrics()`)
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const queueDepth = options.queueDepth;
  return {
    registry,
    httpRequests: new Counter({ name: 'countersign_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames: ['method', 'route', 'status'], registers }),
    httpDuration: new Histogram({ name: 'countersign_http_request_duration_seconds', help: 'Time to answer an HTTP request, seconds.', labelNames: ['method', 'route', 'status'], buckets: HTTP_BUCKETS, registers }),
    gateEvents: new Counter({ name: 'countersign_gate_events_total', help: 'Audit events of the gate (decisions, refusals by reason code, redemptions, spends).', labelNames: ['type', 'reason', 'channel'], registers }),
    pushSends: new Counter({ name: 'countersign_push_sends_total', help: 'Web Push sends, by outcome and push service host.', labelNames: ['outcome', 'service'], registers }),
    requestToPush: new Histogram({ name: 'countersign_request_to_push_seconds', help: 'From /bc-authorize to a push service accepting the push, seconds.', buckets: FLOW_BUCKETS, registers }),
    approvalToToken: new Histogram({ name: 'countersign_approval_to_token_seconds', help: 'From the approval to the token handed to the agent, seconds.', buckets: FLOW_BUCKETS, registers }),
    jobRetries: new Counter({ name: 'countersign_job_retries_total', help: 'Background jobs scheduled again after a failure, by kind.', labelNames: ['kind'], registers }),
    storeErrors: new Counter({ name: 'countersign_store_errors_total', help: 'Redis errors by kind (timeout, lost, moved, not_now, …), including those retried.', labelNames: ['kind'], registers }),
    jobQueueDepth: new Gauge({
      name: 'countersign_job_queue_depth',
      help: 'Background jobs queued or running.',
      registers,
      async collect() {
        const depth = queueDepth ? await queueDepth().catch(() => null) : null;
        if (depth !== null) this.set(depth);
      },
    }),
  };
}

/** The host of a push service endpoint, as a label (`fcm.googleapis.com`); `invalid` for an unreadable one. */
export function pushServiceLabel(origin: string): string {
  try {
    return new URL(origin).hostname || 'invalid';
  } catch {
    return 'invalid';
  }
}
