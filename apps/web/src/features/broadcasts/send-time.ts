/**
 * Wall-clock times in the account's time zone. The schedule picker shows and takes 'YYYY-MM-DD HH:mm:ss'
 * strings meant in that zone, whatever the browser's zone is; the API stores an instant (ISO, UTC).
 */

function parts(instant: number, timeZone: string): Record<string, number> {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const out: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) {
    if (part.type !== 'literal') out[part.type] = Number(part.value);
  }
  return out;
}

/** How far the zone's wall clock is ahead of UTC at this instant, in milliseconds. */
function zoneOffset(instant: number, timeZone: string): number {
  const p = parts(instant, timeZone);
  const wall = Date.UTC(
    p.year ?? 1970,
    (p.month ?? 1) - 1,
    p.day ?? 1,
    p.hour ?? 0,
    p.minute ?? 0,
    p.second ?? 0,
  );
  return wall - Math.floor(instant / 1000) * 1000;
}

const pad = (n: number | undefined) => String(n ?? 0).padStart(2, '0');

/** The instant as the picker's wall-clock string in the zone. */
export function toZonedWallClock(iso: string, timeZone: string): string {
  const p = parts(new Date(iso).getTime(), timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** The picker's wall-clock string, meant in the zone, as an ISO instant; null when it is not a date-time. */
export function fromZonedWallClock(value: string, timeZone: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const wall = Date.UTC(y!, mo! - 1, d!, h!, mi!, s ?? 0);
  // Two passes settle a wall time next to a daylight-saving change onto the offset valid at that instant.
  let instant = wall - zoneOffset(wall, timeZone);
  instant = wall - zoneOffset(instant, timeZone);
  return new Date(instant).toISOString();
}

/** An instant as a date and time in the zone, with the zone named ("Nov 26, 2026, 09:00 (Europe/Berlin)"). */
export function formatInZone(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = date.toLocaleString(undefined, {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return `${text} (${timeZone})`;
}

/** Tomorrow at 09:00 in the zone: the schedule picker's first suggestion. */
export function tomorrowMorning(timeZone: string, now: number = Date.now()): string {
  const p = parts(now + 24 * 3600_000, timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)} 09:00:00`;
}

/** A zone the browser knows, else UTC (an account may carry a zone name this browser lacks). */
export function usableTimeZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** A picker wall-clock string as a zone-free date and time ("Nov 26, 2026, 09:00"). */
export function formatLocalTime(wallClock: string): string {
  const instant = fromZonedWallClock(wallClock, 'UTC');
  if (!instant) return wallClock;
  return new Date(instant).toLocaleString(undefined, {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** When UTC−12, the last zone, reaches a wall-clock time: after this nobody can get it at that time. */
export function recipientWindowEnd(wallClock: string): number {
  const instant = fromZonedWallClock(wallClock, 'UTC');
  return instant ? new Date(instant).getTime() + 12 * 3600_000 : Number.NaN;
}
