import type { WaitConfig } from '@herald/contracts';
import {
  addDays,
  clockMinutes,
  localTimeAt,
  safeTimeZone,
  weekdayOf,
  zonedToInstant,
  type LocalDate,
} from './zoned-time.ts';

const minuteMs = 60_000;

type Duration = { amount: number; unit: 'minutes' | 'hours' | 'days' | 'weeks' };

/**
 * When a wait started at `now` is over. Minutes and hours are exact; days and weeks are calendar days in the
 * person's time zone, so "wait 1 day" from Monday 9:00 ends Tuesday 9:00 on the clock even across a DST change
 * (a reading that falls into a DST gap ends when the clocks jump). `until` is its own instant (a past one: now).
 * `weekday` is the first moment at or after now on one of the days with the clock in [from, to): now itself
 * when inside such a window.
 */
export function nextWakeTime(wait: WaitConfig, now: Date, timeZone: string): Date {
  const zone = safeTimeZone(timeZone);
  switch (wait.mode) {
    case 'duration':
      return afterDuration(wait, now, zone);
    case 'until': {
      const at = new Date(wait.at);
      return at.getTime() > now.getTime() ? at : now;
    }
    case 'weekday':
      return nextWindowStart(wait.days, wait.from, wait.to, now, zone);
  }
}

/** The end of a duration wait started at `now` (see nextWakeTime). */
export function afterDuration(duration: Duration, now: Date, timeZone: string): Date {
  const { amount, unit } = duration;
  if (amount === 0) return now;
  if (unit === 'minutes') return new Date(now.getTime() + amount * minuteMs);
  if (unit === 'hours') return new Date(now.getTime() + amount * 60 * minuteMs);
  const days = unit === 'weeks' ? amount * 7 : amount;
  const local = localTimeAt(now, timeZone);
  const end = zonedToInstant(addDays(local, days), local.hour, local.minute, timeZone);
  // Keep the seconds of the start so a one-day wait is never a few seconds short.
  return new Date(end.getTime() + local.second * 1000 + (now.getTime() % 1000));
}

/**
 * The first moment at or after `now` inside a window: on a day listed in `days` (0 = Sunday), from `from` until
 * `to` on the clock of `timeZone`. A window whose end is not after its start runs over midnight into the next day
 * (22:00–06:00); from = to is the whole day.
 */
export function nextWindowStart(
  days: readonly number[],
  from: string,
  to: string,
  now: Date,
  timeZone: string,
): Date {
  const zone = safeTimeZone(timeZone);
  const start = clockMinutes(from);
  const end = clockMinutes(to);
  const today: LocalDate = localTimeAt(now, zone);
  const nowMs = now.getTime();
  let best: number | null = null;
  // Yesterday's window may still be open (over midnight); a listed day comes within a week.
  for (let offset = -1; offset <= 8; offset += 1) {
    const day = addDays(today, offset);
    if (!days.includes(weekdayOf(day))) continue;
    const opens = zonedToInstant(day, Math.floor(start / 60), start % 60, zone).getTime();
    const closesDay = end > start ? day : addDays(day, 1);
    const closes = zonedToInstant(closesDay, Math.floor(end / 60), end % 60, zone).getTime();
    if (opens <= nowMs && nowMs < closes) return now;
    if (opens >= nowMs && (best === null || opens < best)) best = opens;
  }
  return new Date(best ?? nowMs);
}
