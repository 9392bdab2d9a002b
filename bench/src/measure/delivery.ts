import { summarise } from '../load/latency.ts';
import type { LatencySummary } from '../load/spec.ts';

/**
 * How long what a run's requests set off took to arrive: from each expected answer at the load
 * process to the message it caused at a receiver of the benchmark, both on the machine's monotonic
 * clock (`infra/clock.ts`).
 */
export interface Delivery {
  /** `push`: the Web Push at the local push service; `ping`: the CIBA ping at the client's notification endpoint. */
  kind: 'push' | 'ping';
  /** What the time counts from, and what it counts to. */
  from: string;
  to: string;
  /** Expected answers in the measured window: each sets off one message. */
  expected: number;
  /** Of them, how many messages arrived before the wait ended (only these are in `latency`). */
  arrived: number;
  /** Messages that arrived before their answer did (the server sends them from its job queue, beside the answer): counted, with their negative times. */
  beforeAnswer: number;
  /** Answer to arrival, milliseconds. */
  latency: LatencySummary;
  /** The share of the step's peak the run was paced at: the targets are judged at `half`; `quarter` shows the latency away from saturation. */
  share?: 'half' | 'quarter';
}

/**
 * Matches each answer to its message by `key` (the `Topic` of a push, the `auth_req_id` of a ping)
 * and summarises the time between them.
 */
export function deliveryOf(kind: Delivery['kind'], from: string, to: string, answers: { key: string; answeredAt: number }[], arrivals: Map<string, number>): Delivery {
  const times: number[] = [];
  for (const { key, answeredAt } of answers) {
    const arrivedAt = arrivals.get(key);
    if (arrivedAt !== undefined) times.push(arrivedAt - answeredAt);
  }
  return { kind, from, to, expected: answers.length, arrived: times.length, beforeAnswer: times.filter((ms) => ms < 0).length, latency: summarise(times) };
}

/** One line for the log and the notes: `4,132 of 4,132 pushes, p50 3.2 ms, p99 18 ms`. */
export function describeDelivery(delivery: Delivery): string {
  const early = delivery.beforeAnswer ? ` (${delivery.beforeAnswer} before their answer)` : '';
  return `${delivery.arrived} of ${delivery.expected} ${delivery.kind === 'push' ? 'pushes' : 'pings'} arrived${early}: ${delivery.from} to ${delivery.to} p50 ${delivery.latency.p50} ms, p99 ${delivery.latency.p99} ms, max ${delivery.latency.max} ms`;
}
