/**
 * Wall-clock arithmetic in IANA time zones with Intl only (no time-zone library). A local time is a calendar date
 * and a clock reading; `zonedToInstant` turns it into an instant the way Temporal's 'compatible' disambiguation
 * does for overlaps (the earlier of the two instants), and for gaps it gives the instant the clocks jump (the first
 * moment that exists at or after the wanted reading), which is what "the first moment in a window" needs.
 */

export type LocalDate = { year: number; month: number; day: number };
export type LocalTime = LocalDate & { hour: number; minute: number; second: number; weekday: number };

const minuteMs = 60_000;
const dayMs = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when Intl knows the time zone. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The time zone to read clocks in: the given one when Intl knows it, else UTC. */
export function safeTimeZone(timeZone: string | null | undefined): string {
  return timeZone && isValidTimeZone(timeZone) ? timeZone : 'UTC';
}

const readingPattern = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;
/** Clock readings already computed, by zone and instant: a batch of runs asks for the same few many times. */
const readings = new Map<string, LocalTime>();
const maxReadings = 20_000;

/** The wall clock in `timeZone` at `instant` (weekday 0 = Sunday). */
export function localTimeAt(instant: Date | number, timeZone: string): Readonly<LocalTime> {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const cacheKey = `${timeZone}@${ms}`;
  const known = readings.get(cacheKey);
  if (known) return known;
  const formatter = formatterFor(timeZone);
  // format() and a pattern cost a third of formatToParts(); the parts stay as the fallback for odd output.
  const m = readingPattern.exec(formatter.format(ms));
  let reading: LocalTime;
  if (m) {
    const date = { year: Number(m[3]), month: Number(m[1]), day: Number(m[2]) };
    reading = {
      ...date,
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: Number(m[6]),
      weekday: weekdayOf(date),
    };
  } else {
    const parts = formatter.formatToParts(ms);
    const get = (type: Intl.DateTimeFormatPartTypes) =>
      Number(parts.find((p) => p.type === type)?.value ?? 0);
    const date = { year: get('year'), month: get('month'), day: get('day') };
    reading = {
      ...date,
      hour: get('hour'),
      minute: get('minute'),
      second: get('second'),
      weekday: weekdayOf(date),
    };
  }
  if (readings.size >= maxReadings) readings.clear();
  readings.set(cacheKey, reading);
  return reading;
}

/** The weekday of a calendar date, 0 = Sunday. */
export function weekdayOf(date: LocalDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

/** The calendar date `days` after `date` (negative: before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * dayMs);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Minutes the zone's clock is ahead of UTC at `instantMs` (whole seconds are enough for every real zone). */
function offsetMinutesAt(instantMs: number, timeZone: string): number {
  const t = localTimeAt(instantMs, timeZone);
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / minuteMs);
}

/** The reading, as if it were UTC, in milliseconds. */
function readingMs(date: LocalDate, hour: number, minute: number): number {
  return Date.UTC(date.year, date.month - 1, date.day, hour, minute);
}

/**
 * The instant the clock in `timeZone` reads `hour:minute` on `date`. In an overlap (clocks turned back) the earlier
 * instant; in a gap (clocks turned forward) the instant of the jump, the first moment after the missing reading.
 */
export function zonedToInstant(date: LocalDate, hour: number, minute: number, timeZone: string): Date {
  const reading = readingMs(date, hour, minute);
  // Offsets in force a little before and a little after: any transition near the reading is between them.
  const before = offsetMinutesAt(reading - dayMs, timeZone);
  const after = offsetMinutesAt(reading + dayMs, timeZone);
  const matches = (offset: number) => {
    const instant = reading - offset * minuteMs;
    return offsetMinutesAt(instant, timeZone) === offset ? instant : null;
  };
  const candidates = [matches(before), matches(after)].filter((x): x is number => x !== null);
  if (candidates.length > 0) return new Date(Math.min(...candidates));
  // A gap: find the first instant whose clock reads past the missing reading, between the two guesses.
  let low = reading - Math.max(before, after) * minuteMs;
  let high = reading - Math.min(before, after) * minuteMs;
  const isPast = (instant: number) => instant + offsetMinutesAt(instant, timeZone) * minuteMs >= reading;
  while (high - low > minuteMs) {
    const mid = low + Math.floor((high - low) / 2 / minuteMs) * minuteMs;
    if (isPast(mid)) high = mid;
    else low = mid;
  }
  return new Date(isPast(low) ? low : high);
}

/** 'HH:MM' → minutes after midnight. */
export function clockMinutes(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}
