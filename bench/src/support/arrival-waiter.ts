/** Lets a caller wait until what a receiver got meets a condition (a count, a set of requests). */
export interface ArrivalWaiter {
  /** Call after something arrived: resolves the wait it completes. */
  moved(): void;
  /** Resolves once `done()` holds (or after `timeoutMs`); answers the wait in ms. */
  waitUntil(done: () => boolean, timeoutMs: number): Promise<number>;
}

/** An {@link ArrivalWaiter} for one waiter at a time (the benchmark waits for one run at a time). */
export function arrivalWaiter(): ArrivalWaiter {
  let waiter: { done: () => boolean; resolve: () => void } | null = null;
  return {
    moved() {
      if (waiter?.done()) waiter.resolve();
    },
    async waitUntil(done, timeoutMs) {
      const started = Date.now();
      if (!done()) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          waiter = {
            done,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          };
        });
        waiter = null;
      }
      return Date.now() - started;
    },
  };
}
