/**
 * What the orchestrator asks of the load process, and what it answers. Both are JSON files, so
 * the load process shares nothing with the orchestrator but its arguments.
 */

/** One request of a run whose requests are all different (a token, an assertion, a body). */
export interface LoadItem {
  path?: string;
  body?: string;
  /** Added to the run's headers (a device's session cookie). */
  headers?: Record<string, string>;
}

/** What counts as the answer a scenario expects (anything else is counted by its status and `error`). */
export interface Expectation {
  status: number;
  /** The OAuth `error` word an expected refusal carries (`authorization_pending`). */
  error?: string;
}

export interface LoadSpec {
  name: string;
  /**
   * `closed`: autocannon, `connections` requests in flight at all times (peak throughput).
   * `paced`: an open-loop sender at a fixed `rate` (latency at a given load): autocannon's own
   * `overallRate` sends each second's quota in a burst at the top of the second, which would
   * measure the burst, not the rate.
   */
  mode: 'closed' | 'paced';
  /** `http://127.0.0.1:PORT`. */
  target: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Distinct requests, used once each in order (or round-robin with `cycle`). */
  items?: LoadItem[];
  cycle?: boolean;
  /** A cheap request sent while the run winds down after the items ran out; never counted. */
  fillerPath?: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Requests per second, for `paced`. */
  rate?: number;
  expect: Expectation;
  /** A member of the expected JSON answers to hand back (`auth_req_id`, `access_token`). */
  capture?: string;
  /**
   * Hand back when each expected answer of the measured window arrived, on the machine's
   * monotonic clock (`infra/clock.ts`), to time what the request sets off against it (a push).
   */
  stamp?: boolean;
  resultFile: string;
}

/** When the answer to one item arrived at the load process. */
export interface AnswerStamp {
  /** The item's position in `LoadSpec.items`. */
  index: number;
  /** Milliseconds on the machine's monotonic clock (`monotonicMs`). */
  answeredAt: number;
}

export interface LatencySummary {
  /** Milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  name: string;
  mode: LoadSpec['mode'];
  connections: number;
  rate?: number;
  /** Seconds actually measured (shorter than asked when the items ran out). */
  windowSeconds: number;
  exhausted: boolean;
  /** Every answer of the run, warm-up included (for CPU per request). */
  totalResponses: number;
  /** Answers in the window. */
  windowResponses: number;
  /** Expected answers in the window. */
  ok: number;
  /** Expected answers per second in the window. */
  rps: number;
  /** Of the expected answers in the window. */
  latency: LatencySummary;
  /** Unexpected answers in the window, by `status error`. */
  unexpected: Record<string, number>;
  socketErrors: number;
  captured: string[];
  /** With `LoadSpec.stamp`: the expected answers of the window, when each arrived. */
  answers?: AnswerStamp[];
  /** CPU the load process used, as a share of one core over the run. */
  loadCpuShare: number;
  wallSeconds: number;
}
