/**
 * A moment in the person's own words and time zone: `today, 14:05`, `yesterday, 09:12`, or
 * `3 Mar 2026, 14:05`. The locale is the browser's.
 *
 * @param iso - an ISO 8601 time from the server.
 * @param now - the reference for "today" (the device's clock is good enough for a label).
 */
export function formatWhen(iso: string, now: Date = new Date(), locale?: string): string {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return '';
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(when);
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (sameDay(when, now)) return `today, ${time}`;
  if (sameDay(when, yesterday)) return `yesterday, ${time}`;
  const date = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' }).format(when);
  return `${date}, ${time}`;
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}
