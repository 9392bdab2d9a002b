/**
 * Whole seconds as a clock reading: `4:05`, `1:02:03`.
 *
 * @param seconds - whole seconds, clamped at 0.
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** The text of a time-left indicator: `4:05 left`, or `Expired` at 0. */
export function timeLeftText(seconds: number): string {
  return seconds > 0 ? `${formatDuration(seconds)} left` : 'Expired';
}
