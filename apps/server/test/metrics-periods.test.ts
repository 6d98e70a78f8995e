import { metricsPresets, type MetricsPreset } from '@herald/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketsOf,
  customPeriod,
  instantOf,
  presetPeriod,
  wallClock,
} from '../src/features/metrics/metric-periods.ts';

/** Zones with daylight saving at 01:00 UTC, 02:00 local, midnight (Santiago), half-hour shifts, odd offsets. */
const zones = [
  'UTC',
  'Europe/London',
  'America/New_York',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];
const hour = 3_600_000;
const instants = fc.integer({ min: Date.UTC(2018, 0, 1), max: Date.UTC(2035, 11, 31) });
const dayOf = (instant: number, tz: string) => {
  const l = wallClock(instant, tz);
  return `${l.year}-${l.month}-${l.day}`;
};
/** The first instant of its local day: the second before falls on another date. */
const startsADay = (instant: number, tz: string) => dayOf(instant - 1000, tz) !== dayOf(instant, tz);
const weekdayOf = (instant: number, tz: string) => {
  const l = wallClock(instant, tz);
  return new Date(Date.UTC(l.year, l.month - 1, l.day)).getUTCDay();
};

/** The rolling presets and their length in local days, today included. */
const rolling: Partial<Record<MetricsPreset, number>> = { last7Days: 7, last30Days: 30, last90Days: 90 };
/** Local calendar days from one instant's date to another's (no time zone arithmetic beyond reading the dates). */
const daysBetween = (from: number, to: number, tz: string) => {
  const [a, b] = [wallClock(from, tz), wallClock(to, tz)];
  return Math.round(
    (Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000,
  );
};

describe('metrics periods', () => {
  it('gives a period "this …" at the very instant it starts one millisecond, not an empty one (a case fast-check found)', () => {
    const period = presetPeriod('thisYear', Date.UTC(2018, 0, 1), 'UTC');
    expect([period.start, period.end]).toEqual([Date.UTC(2018, 0, 1), Date.UTC(2018, 0, 1) + 1]);
    expect(bucketsOf(period, 'UTC')).toHaveLength(1);
  });

  it('cut every preset into buckets that cover it exactly, on local boundaries', () => {
    fc.assert(
      fc.property(
        instants,
        fc.constantFrom(...zones),
        fc.constantFrom(...metricsPresets),
        (now, tz, preset: MetricsPreset) => {
          const period = presetPeriod(preset, now, tz);
          expect(period.start).toBeLessThan(period.end);
          expect(startsADay(period.start, tz)).toBe(true);
          if (preset.startsWith('this')) expect(period.end).toBe(Math.max(now, period.start + 1));
          else if (rolling[preset]) expect(period.end).toBeGreaterThanOrEqual(now);
          else {
            expect(period.end).toBeLessThanOrEqual(now);
            expect(startsADay(period.end, tz)).toBe(true);
          }
          const buckets = bucketsOf(period, tz);
          expect(buckets[0]!.start).toBe(period.start);
          expect(buckets.at(-1)!.end).toBe(period.end);
          for (let i = 0; i < buckets.length; i++) {
            const b = buckets[i]!;
            expect(b.start).toBeLessThan(b.end);
            if (i > 0) expect(b.start).toBe(buckets[i - 1]!.end);
            const inner = i > 0 ? b.start : null;
            const length = b.end - b.start;
            if (period.bucket === 'hour') expect(length).toBeLessThanOrEqual(hour);
            if (period.bucket === 'day') {
              expect(length).toBeLessThanOrEqual(25 * hour);
              if (inner !== null) expect(startsADay(inner, tz)).toBe(true);
            }
            if (period.bucket === 'week') {
              expect(length).toBeLessThanOrEqual(7 * 24 * hour + hour);
              if (inner !== null) expect([startsADay(inner, tz), weekdayOf(inner, tz)]).toEqual([true, 1]);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('give each preset its bucket and length', () => {
    const now = Date.UTC(2026, 10, 25, 15, 30);
    const expectations: Record<MetricsPreset, [string, number, number]> = {
      // Six whole days and today's sixteen hours begun by 15:30.
      last7Days: ['hour', 6 * 24 + 16, 6 * 24 + 16],
      last30Days: ['day', 30, 30],
      last90Days: ['day', 90, 90],
      lastWeek: ['hour', 7 * 24, 7 * 24],
      thisWeek: ['hour', 2 * 24 + 16, 2 * 24 + 16],
      lastMonth: ['day', 31, 31],
      thisMonth: ['day', 25, 25],
      lastQuarter: ['day', 92, 92],
      thisQuarter: ['day', 56, 56],
      lastYear: ['week', 53, 53],
      thisYear: ['week', 48, 48],
    };
    for (const preset of metricsPresets) {
      const period = presetPeriod(preset, now, 'UTC');
      const [bucket, min, max] = expectations[preset];
      expect(period.bucket, preset).toBe(bucket);
      const count = bucketsOf(period, 'UTC').length;
      expect(count, preset).toBeGreaterThanOrEqual(min);
      expect(count, preset).toBeLessThanOrEqual(max);
    }
    expect(new Date(presetPeriod('lastQuarter', now, 'UTC').start).toISOString()).toBe(
      '2026-07-01T00:00:00.000Z',
    );
    expect(new Date(presetPeriod('thisWeek', now, 'UTC').start).toISOString()).toBe(
      '2026-11-23T00:00:00.000Z',
    );
    expect(new Date(presetPeriod('lastMonth', Date.UTC(2026, 0, 10), 'UTC').start).toISOString()).toBe(
      '2025-12-01T00:00:00.000Z',
    );
  });

  it('make the rolling presets the last N local days with today: from a local midnight to now', () => {
    fc.assert(
      fc.property(
        instants,
        fc.constantFrom(...zones),
        fc.constantFrom<MetricsPreset>('last7Days', 'last30Days', 'last90Days'),
        fc.boolean(),
        (instant, tz, preset, atMidnight) => {
          // Half the runs ask at the very instant a local day starts.
          const local = wallClock(instant, tz);
          const now = atMidnight
            ? instantOf({ year: local.year, month: local.month, day: local.day }, tz)
            : instant;
          const days = rolling[preset]!;
          const period = presetPeriod(preset, now, tz);
          // It reaches now: a send made before the request counts, whatever the hour; it ends now, or one millisecond
          // into today at the instant today starts.
          expect(period.start).toBeLessThanOrEqual(now);
          const today = wallClock(now, tz);
          expect(period.end).toBe(
            Math.max(now, instantOf({ year: today.year, month: today.month, day: today.day }, tz) + 1),
          );
          expect(startsADay(period.start, tz)).toBe(true);
          // N local days, the last of them today.
          expect(daysBetween(period.start, now, tz)).toBe(days - 1);
          const dates = new Set(bucketsOf(period, tz).map((bucket) => dayOf(bucket.start, tz)));
          expect(dates.size).toBe(days);
          expect(dates.has(dayOf(now, tz))).toBe(true);
          expect(dates.has(dayOf(period.start - 1000, tz))).toBe(false);
          if (period.bucket === 'day') expect(bucketsOf(period, tz)).toHaveLength(days);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('show Nov 6 – Dec 5 as the last 30 days on Dec 5, and the current hour in the last 7 days', () => {
    const now = Date.UTC(2026, 11, 5, 9, 41);
    const month = presetPeriod('last30Days', now, 'Europe/Berlin');
    expect(new Date(month.start).toISOString()).toBe('2026-11-05T23:00:00.000Z');
    expect(month.end).toBe(now);
    expect(dayOf(month.end - 1, 'Europe/Berlin')).toBe('2026-12-5');
    const week = presetPeriod('last7Days', now, 'UTC');
    expect(new Date(week.start).toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(bucketsOf(week, 'UTC').at(-1)).toEqual({ start: Date.UTC(2026, 11, 5, 9), end: now });
    // At midnight itself, today is still one of the seven days, one millisecond of it.
    const midnight = presetPeriod('last7Days', Date.UTC(2026, 11, 5), 'UTC');
    expect([midnight.start, midnight.end]).toEqual([Date.UTC(2026, 10, 29), Date.UTC(2026, 11, 5) + 1]);
    // The calendar presets keep ending where the current unit starts.
    expect(presetPeriod('lastWeek', now, 'UTC').end).toBe(Date.UTC(2026, 10, 30));
    expect(presetPeriod('lastMonth', now, 'UTC').end).toBe(Date.UTC(2026, 11, 1));
  });

  it('give days of 23 and 25 hours on daylight-saving changes', () => {
    const spring = bucketsOf(
      {
        start: instantOf({ year: 2026, month: 3, day: 29 }, 'Europe/London'),
        end: instantOf({ year: 2026, month: 3, day: 30 }, 'Europe/London'),
        bucket: 'day',
      },
      'Europe/London',
    );
    expect(spring.map((b) => (b.end - b.start) / hour)).toEqual([23]);
    const autumn = customPeriod('2026-10-25', '2026-10-25', Date.UTC(2027, 0, 1), 'Europe/London');
    expect(autumn.end - autumn.start).toBe(25 * hour);
    expect(bucketsOf(autumn, 'Europe/London')).toHaveLength(25);
    // Santiago skips midnight when its clocks go forward: the day starts at 01:00.
    const santiago = instantOf({ year: 2026, month: 9, day: 6 }, 'America/Santiago');
    expect(wallClock(santiago, 'America/Santiago')).toMatchObject({ day: 6, hour: 1, minute: 0 });
  });

  it('read a local wall clock back to the instant it names', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), (instant, tz) => {
        const second = Math.floor(instant / 1000) * 1000;
        const local = wallClock(second, tz);
        const back = instantOf(local, tz);
        // A repeated hour maps to its first occurrence, which shows the same wall clock.
        expect(wallClock(back, tz)).toEqual(local);
        expect(back).toBeLessThanOrEqual(second);
      }),
      { numRuns: 400 },
    );
  });

  it('start all time at 2017-01-01 and refuse nothing before it', () => {
    const period = customPeriod('2010-05-01', undefined, Date.UTC(2026, 0, 1), 'UTC');
    expect(new Date(period.start).toISOString()).toBe('2017-01-01T00:00:00.000Z');
    expect(period.bucket).toBe('week');
  });
});
