/**
 * The days a period of figures covers, as "Nov 6 – Dec 5, 2026", in the time zone they were cut in. The period's end
 * is exclusive, so the last day shown is the day of its last instant: the last 30 days asked on Dec 5 end now and
 * read "Nov 6 – Dec 5" (today included); last month asked then ends at Dec 1 00:00 and reads "Nov 1 – 30" (see
 * docs/tracking-and-metrics.md, Email metrics, "Periods").
 */
export function periodRange(startDate: string, endDate: string, timeZone: string, locale?: string): string {
  const format = new Intl.DateTimeFormat(locale, {
    timeZone,
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  });
  const start = new Date(startDate);
  const last = new Date(Math.max(start.getTime(), new Date(endDate).getTime() - 1));
  return format.formatRange(start, last);
}
