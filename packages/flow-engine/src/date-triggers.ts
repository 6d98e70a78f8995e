import {
  addDays,
  clockMinutes,
  localTimeAt,
  safeTimeZone,
  zonedToInstant,
  type LocalDate,
} from './zoned-time.ts';

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The calendar date a date field holds: 'YYYY-MM-DD' as written, a date-time (or Date) as its date on the clock of
 * `timeZone`; null when it is not a date.
 */
export function fieldCalendarDate(value: unknown, timeZone: string): LocalDate | null {
  if (typeof value === 'string') {
    const m = dayPattern.exec(value.trim());
    if (m) {
      const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
      const check = new Date(Date.UTC(date.year, date.month - 1, date.day));
      const rolledOver =
        check.getUTCFullYear() !== date.year ||
        check.getUTCMonth() + 1 !== date.month ||
        check.getUTCDate() !== date.day;
      return rolledOver ? null : date;
    }
  }
  const instant = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (!instant || Number.isNaN(instant.getTime())) return null;
  const { year, month, day } = localTimeAt(instant, safeTimeZone(timeZone));
  return { year, month, day };
}

/** The instant a date-field trigger fires: the field's date shifted by offsetDays, at `time` in the time zone. */
export function dateFieldFireTime(
  fieldDate: unknown,
  offsetDays: number,
  time: string,
  timeZone: string,
): Date | null {
  const zone = safeTimeZone(timeZone);
  const date = fieldCalendarDate(fieldDate, zone);
  if (!date) return null;
  const minutes = clockMinutes(time);
  return zonedToInstant(addDays(date, offsetDays), Math.floor(minutes / 60), minutes % 60, zone);
}

/** The instant a /dateFieldTrigger fires for this field value, when that is at or after now; null otherwise. */
export function nextDateFieldFire(
  fieldDate: unknown,
  offsetDays: number,
  time: string,
  timeZone: string,
  now: Date,
): Date | null {
  const fire = dateFieldFireTime(fieldDate, offsetDays, time, timeZone);
  return fire && fire.getTime() >= now.getTime() ? fire : null;
}

/**
 * The next anniversary of a date field at or after now, at `time` in the time zone (an /annualTrigger). The 29th
 * of February is celebrated on the 28th in other years. Null when the field holds no date.
 */
export function nextAnnualFire(fieldDate: unknown, time: string, timeZone: string, now: Date): Date | null {
  const zone = safeTimeZone(timeZone);
  const date = fieldCalendarDate(fieldDate, zone);
  if (!date) return null;
  const minutes = clockMinutes(time);
  const thisYear = localTimeAt(now, zone).year;
  for (let year = thisYear - 1; year <= thisYear + 1; year += 1) {
    const day = date.month === 2 && date.day === 29 && !isLeapYear(year) ? 28 : date.day;
    const fire = zonedToInstant(
      { year, month: date.month, day },
      Math.floor(minutes / 60),
      minutes % 60,
      zone,
    );
    if (fire.getTime() >= now.getTime()) return fire;
  }
  return null;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
