/** Runs `tick` every `everyMs` milliseconds until the returned function is called. */
export type Ticker = (tick: () => void, everyMs: number) => () => void;

/** A {@link Ticker} on `setInterval`, unref'd so it never keeps the process alive on its own. */
export const intervalTicker: Ticker = (tick, everyMs) => {
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
};
