/** A source of monotonic milliseconds; `performance.now` by default. */
export type Clock = () => number;

/**
 * Counts down from the server's `seconds_left`, calling `onTick` with the whole seconds left now
 * and then on every second, down to 0 and no further.
 *
 * The count runs on the monotonic clock from the moment the server's answer arrived, so a phone
 * whose wall clock is wrong still shows the server's time left.
 *
 * @param secondsLeft - whole seconds left, as the server computed them.
 * @returns a function that stops the countdown.
 */
export function startCountdown(secondsLeft: number, onTick: (remaining: number) => void, now: Clock = () => performance.now()): () => void {
  const started = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    const elapsed = now() - started;
    const remaining = Math.max(0, secondsLeft - Math.floor(elapsed / 1000));
    onTick(remaining);
    if (remaining === 0) return;
    // Wake just after the next whole second, so the display never lags by most of a second.
    timer = setTimeout(tick, 1000 - (elapsed % 1000) + 5);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
