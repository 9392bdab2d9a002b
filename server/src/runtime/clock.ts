/** The clock every time-dependent decision reads: epoch milliseconds. Injected, never global. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock for tests: starts at `start` and moves only when told. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Moves the clock forward by `seconds`. */
  advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
  /** Sets the clock to an epoch millisecond time. */
  set(epochMs: number): void {
    this.#now = epochMs;
  }
}

/**
 * The wall clock plus an offset that tests move forward: time passes as usual (so real clients
 * that sleep see it pass), and `advance` jumps ahead without waiting.
 */
export class OffsetClock implements Clock {
  #offset = 0;
  now(): number {
    return Date.now() + this.#offset;
  }
  /** Moves the clock forward by `seconds`. */
  advance(seconds: number): void {
    this.#offset += seconds * 1000;
  }
}

/** Whole seconds from `nowMs` until `deadlineMs`, never negative. */
export function secondsUntil(deadlineMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
}
