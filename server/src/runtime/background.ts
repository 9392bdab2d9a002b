import type { Logger } from './logger.ts';

/**
 * Work that runs after a response is sent (pushes, notifications). Tracked, so tests and a
 * graceful shutdown can wait for it with {@link Background.drain}; a failure is logged, never thrown.
 */
export class Background {
  readonly #pending = new Set<Promise<unknown>>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Starts `task` now and tracks it until it settles. */
  run(name: string, task: () => Promise<unknown>): void {
    const promise = Promise.resolve()
      .then(task)
      .catch((error: unknown) => this.#log.error(`background task ${name} failed`, { error: String(error) }))
      .finally(() => this.#pending.delete(promise));
    this.#pending.add(promise);
  }

  /** Resolves once every task started so far (and any they start) has settled. */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
