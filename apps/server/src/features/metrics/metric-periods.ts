import { allTimeStart, type MetricsBucket, type MetricsPreset } from '@herald/contracts';

/**
 * The arithmetic of metrics periods (docs/tracking-and-metrics.md): where each preset starts and ends and how it is cut into
 * buckets, in the requester's time zone. Local wall clocks are read and set with Intl, so days of 23 or 25 hours
 * (daylight-saving changes) come out as the zone has them. Weeks start on Monday (ISO 8601).
 */

export interface Range {
  start: number;
  end: number;
}
export interface Period extends Range {
  bucket: MetricsBucket;
}

interface Local {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The wall clock of an instant in a zone. */
export function wallClock(instant: number, timeZone: string): Local {
  const parts: Record<string, number> = {};
  for (const part of formatOf(timeZone).formatToParts(new Date(instant)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

const asUtc = (l: Local) => Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
const offsetAt = (instant: number, timeZone: string) =>
  asUtc(wallClock(Math.floor(instant / 1000) * 1000, timeZone)) - Math.floor(instant / 1000) * 1000;

/**
 * The instant a local wall clock names. A time skipped by a daylight-saving change maps to the first instant after
 * the gap; a repeated time to its first occurrence.
 */
export function instantOf(
  local: Omit<Local, 'hour' | 'minute' | 'second'> & Partial<Local>,
  timeZone: string,
): number {
  const wall = asUtc({ hour: 0, minute: 0, second: 0, ...local });
  const candidates = [
    wall - offsetAt(wall - 86_400_000, timeZone),
    wall - offsetAt(wall + 86_400_000, timeZone),
    wall - offsetAt(wall, timeZone),
  ];
  const exact = candidates
    .filter((instant) => asUtc(wallClock(instant, timeZone)) === wall)
    .sort((a, b) => a - b);
  if (exact.length) return exact[0]!;
  // In a gap: the instant where the clock jumps past the wall time.
  let low = Math.min(...candidates) - 86_400_000;
  let high = Math.max(...candidates) + 86_400_000;
  while (high - low > 1000) {
    const mid = Math.floor((low + high) / 2 / 1000) * 1000;
    if (asUtc(wallClock(mid, timeZone)) < wall) low = mid;
    else high = mid;
  }
  return high;
}

/** Calendar arithmetic on local dates (no time zone involved). */
const addDays = (d: { year: number; month: number; day: number }, days: number) => {
  const date = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
};
const weekday = (d: { year: number; month: number; day: number }) =>
  (new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7;

const startOfDay = (d: { year: number; month: number; day: number }, tz: string) => instantOf(d, tz);

/** Start and end (exclusive) of a preset at `now` in `timeZone`, with its bucket. */
export function presetPeriod(preset: MetricsPreset, now: number, timeZone: string): Period {
  const today = wallClock(now, timeZone);
  const day = { year: today.year, month: today.month, day: today.day };
  const monday = addDays(day, -weekday(day));
  const quarterMonth = Math.floor((day.month - 1) / 3) * 3 + 1;
  const at = (d: { year: number; month: number; day: number }) => startOfDay(d, timeZone);
  // Month arithmetic through Date.UTC, which carries month overflow into the year.
  const monthStart = (year: number, month: number) => {
    const date = new Date(Date.UTC(year, month - 1, 1));
    return at({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: 1 });
  };
  // A period "this …" runs from its start to now; at the very instant it starts it is one millisecond long, never empty.
  const sinceStart = (start: number, bucket: Period['bucket']): Period => ({
    start,
    end: Math.max(now, start + 1),
    bucket,
  });
  // The rolling presets are the last N local days with today, so a send of today counts at once: from the start of
  // the day N-1 days before today to now (docs/tracking-and-metrics.md, Email metrics, "Periods"). At the very instant today
  // starts they run one millisecond into it, so today is still one of their days.
  const rolling = (days: number, bucket: Period['bucket']): Period => ({
    start: at(addDays(day, 1 - days)),
    end: Math.max(now, at(day) + 1),
    bucket,
  });
  switch (preset) {
    case 'last7Days':
      return rolling(7, 'hour');
    case 'last30Days':
      return rolling(30, 'day');
    case 'last90Days':
      return rolling(90, 'day');
    case 'lastWeek':
      return { start: at(addDays(monday, -7)), end: at(monday), bucket: 'hour' };
    case 'thisWeek':
      return sinceStart(at(monday), 'hour');
    case 'lastMonth':
      return {
        start: monthStart(day.year, day.month - 1),
        end: monthStart(day.year, day.month),
        bucket: 'day',
      };
    case 'thisMonth':
      return sinceStart(monthStart(day.year, day.month), 'day');
    case 'lastQuarter':
      return {
        start: monthStart(day.year, quarterMonth - 3),
        end: monthStart(day.year, quarterMonth),
        bucket: 'day',
      };
    case 'thisQuarter':
      return sinceStart(monthStart(day.year, quarterMonth), 'day');
    case 'lastYear':
      return { start: monthStart(day.year - 1, 1), end: monthStart(day.year, 1), bucket: 'week' };
    case 'thisYear':
      return sinceStart(monthStart(day.year, 1), 'week');
  }
}

/** A date ('2026-01-31', the start of that local day) or an instant with its offset. */
export function parseDate(value: string, timeZone: string, endOfDay: boolean): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!date) return Date.parse(value);
  const local = { year: Number(date[1]), month: Number(date[2]), day: Number(date[3]) };
  return startOfDay(endOfDay ? addDays(local, 1) : local, timeZone);
}

/**
 * A range chosen by dates: a missing start is all time (from 2017-01-01), a missing end is now; an end date names
 * the whole of that day. The bucket follows the length as the presets do: hours up to a week, days up to a
 * quarter, weeks beyond.
 */
export function customPeriod(
  startDate: string | undefined,
  endDate: string | undefined,
  now: number,
  timeZone: string,
): Period {
  const floor = parseDate(allTimeStart, timeZone, false);
  const start = Math.max(floor, startDate ? parseDate(startDate, timeZone, false) : floor);
  const end = endDate ? parseDate(endDate, timeZone, true) : now;
  const days = (end - start) / 86_400_000;
  return { start, end, bucket: days <= 8 ? 'hour' : days <= 93 ? 'day' : 'week' };
}

/** The start of the bucket holding `instant`: the local hour, day or Monday-started week. */
export function bucketStart(instant: number, bucket: MetricsBucket, timeZone: string): number {
  const local = wallClock(instant, timeZone);
  const day = { year: local.year, month: local.month, day: local.day };
  if (bucket === 'hour') {
    // An hour is 3600 s of the wall clock; zones offset by a whole number of hours start it on a UTC hour.
    const within = (local.minute * 60 + local.second) * 1000;
    return Math.floor(instant / 1000) * 1000 - within;
  }
  if (bucket === 'day') return startOfDay(day, timeZone);
  return startOfDay(addDays(day, -weekday(day)), timeZone);
}

/** The buckets that cut [start, end) with no gap or overlap; the first and last are clipped to the range. */
export function bucketsOf(period: Period, timeZone: string): Range[] {
  const buckets: Range[] = [];
  let from = period.start;
  while (from < period.end) {
    const local = wallClock(from, timeZone);
    const day = { year: local.year, month: local.month, day: local.day };
    let next: number;
    if (period.bucket === 'hour') next = bucketStart(from, 'hour', timeZone) + 3_600_000;
    else if (period.bucket === 'day') next = startOfDay(addDays(day, 1), timeZone);
    else next = startOfDay(addDays(day, 7 - weekday(day)), timeZone);
    // A clock change can put the next local boundary no later than `from`; step over it.
    if (next <= from) next = from + 3_600_000;
    buckets.push({ start: from, end: Math.min(next, period.end) });
    from = next;
  }
  return buckets;
}
