import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTimeAt, nextWakeTime, zonedToInstant } from '../src/index.ts';

const iso = (d: Date) => d.toISOString();
const weekday = (days: number[], from: string, to: string) => ({ mode: 'weekday' as const, days, from, to });
const MON = 1;
const TUE = 2;
const FRI = 5;
const SUN = 0;

describe('weekday waits', () => {
  const cases: Array<
    [name: string, zone: string, now: string, wait: ReturnType<typeof weekday>, expected: string]
  > = [
    [
      'next Tuesday morning in Berlin (winter time)',
      'Europe/Berlin',
      '2026-03-23T10:00:00Z',
      weekday([TUE], '09:00', '17:00'),
      '2026-03-24T08:00:00.000Z',
    ],
    [
      'inside the window: at once',
      'Europe/Berlin',
      '2026-03-24T10:00:00Z',
      weekday([TUE], '09:00', '17:00'),
      '2026-03-24T10:00:00.000Z',
    ],
    [
      'the end of a window is not in it',
      'Europe/Berlin',
      '2026-03-24T16:00:00Z',
      weekday([TUE], '09:00', '17:00'),
      '2026-03-31T07:00:00.000Z',
    ],
    [
      'Friday to Monday 9:00 across the spring change in Berlin (CET → CEST)',
      'Europe/Berlin',
      '2026-03-27T15:00:00Z',
      weekday([MON], '09:00', '12:00'),
      '2026-03-30T07:00:00.000Z',
    ],
    [
      'Friday to Monday 9:00 across the autumn change in Berlin (CEST → CET)',
      'Europe/Berlin',
      '2026-10-23T15:00:00Z',
      weekday([MON], '09:00', '12:00'),
      '2026-10-26T08:00:00.000Z',
    ],
    [
      'Friday to Monday 9:00 across the spring change in New York (EST → EDT)',
      'America/New_York',
      '2026-03-06T20:00:00Z',
      weekday([MON], '09:00', '12:00'),
      '2026-03-09T13:00:00.000Z',
    ],
    [
      'Friday to Monday 9:00 across the autumn change in New York (EDT → EST)',
      'America/New_York',
      '2026-10-30T20:00:00Z',
      weekday([MON], '09:00', '12:00'),
      '2026-11-02T14:00:00.000Z',
    ],
    [
      'a window opening in the spring gap opens when the clocks jump (Berlin 02:30 → 03:00 CEST)',
      'Europe/Berlin',
      '2026-03-28T12:00:00Z',
      weekday([SUN], '02:30', '04:00'),
      '2026-03-29T01:00:00.000Z',
    ],
    [
      'a window opening in the spring gap opens when the clocks jump (New York)',
      'America/New_York',
      '2026-03-07T12:00:00Z',
      weekday([SUN], '02:15', '05:00'),
      '2026-03-08T07:00:00.000Z',
    ],
    [
      'a window opening in the autumn overlap opens at the first 02:30 (Berlin, CEST)',
      'Europe/Berlin',
      '2026-10-24T12:00:00Z',
      weekday([SUN], '02:30', '04:00'),
      '2026-10-25T00:30:00.000Z',
    ],
    [
      'a window opening in the autumn overlap opens at the first 01:30 (New York, EDT)',
      'America/New_York',
      '2026-10-31T12:00:00Z',
      weekday([SUN], '01:30', '03:00'),
      '2026-11-01T05:30:00.000Z',
    ],
    [
      'during the repeated hour the window is still open (second 02:30 in Berlin, CET)',
      'Europe/Berlin',
      '2026-10-25T01:30:00Z',
      weekday([SUN], '02:00', '03:00'),
      '2026-10-25T01:30:00.000Z',
    ],
    [
      'an over-midnight window is open after midnight on the next day',
      'Europe/Berlin',
      '2026-03-28T02:00:00Z',
      weekday([FRI], '22:00', '06:00'),
      '2026-03-28T02:00:00.000Z',
    ],
    [
      'an over-midnight window, closed: the next Friday 22:00',
      'Europe/Berlin',
      '2026-03-28T06:00:00Z',
      weekday([FRI], '22:00', '06:00'),
      '2026-04-03T20:00:00.000Z',
    ],
    [
      'from = to is the whole day',
      'America/New_York',
      '2026-03-24T03:59:00Z',
      weekday([TUE], '00:00', '00:00'),
      '2026-03-24T04:00:00.000Z',
    ],
    [
      'several days: the nearest',
      'UTC',
      '2026-03-24T18:00:00Z',
      weekday([MON, FRI], '08:00', '18:00'),
      '2026-03-27T08:00:00.000Z',
    ],
    [
      'Kolkata, no DST, half-hour offset',
      'Asia/Kolkata',
      '2026-03-23T00:00:00Z',
      weekday([MON], '09:00', '10:00'),
      '2026-03-23T03:30:00.000Z',
    ],
    [
      'the same day later on',
      'UTC',
      '2026-03-23T06:00:00Z',
      weekday([MON], '09:00', '10:00'),
      '2026-03-23T09:00:00.000Z',
    ],
  ];
  for (const [name, zone, now, wait, expected] of cases) {
    it(name, () => expect(iso(nextWakeTime(wait, new Date(now), zone))).toBe(expected));
  }
});

describe('duration and until waits', () => {
  it('minutes and hours are exact, even across a DST change', () => {
    const now = new Date('2026-03-29T00:30:00Z');
    expect(iso(nextWakeTime({ mode: 'duration', amount: 2, unit: 'hours' }, now, 'Europe/Berlin'))).toBe(
      '2026-03-29T02:30:00.000Z',
    );
    expect(iso(nextWakeTime({ mode: 'duration', amount: 90, unit: 'minutes' }, now, 'Europe/Berlin'))).toBe(
      '2026-03-29T02:00:00.000Z',
    );
  });

  it('days and weeks keep the clock of the person’s time zone', () => {
    // 09:15:20 in New York the Friday before the spring change → 09:15:20 on Monday (EDT)
    expect(
      iso(
        nextWakeTime(
          { mode: 'duration', amount: 3, unit: 'days' },
          new Date('2026-03-06T14:15:20.250Z'),
          'America/New_York',
        ),
      ),
    ).toBe('2026-03-09T13:15:20.250Z');
    expect(
      iso(
        nextWakeTime(
          { mode: 'duration', amount: 1, unit: 'weeks' },
          new Date('2026-10-20T08:00:00Z'),
          'Europe/Berlin',
        ),
      ),
    ).toBe('2026-10-27T09:00:00.000Z');
  });

  it('a day that lands in the spring gap ends when the clocks jump', () => {
    // 02:30 on Saturday in Berlin; Sunday has no 02:30
    expect(
      iso(
        nextWakeTime(
          { mode: 'duration', amount: 1, unit: 'days' },
          new Date('2026-03-28T01:30:00Z'),
          'Europe/Berlin',
        ),
      ),
    ).toBe('2026-03-29T01:00:00.000Z');
  });

  it('zero is now; a past date is now; a future date is itself', () => {
    const now = new Date('2026-03-06T14:15:20Z');
    expect(nextWakeTime({ mode: 'duration', amount: 0, unit: 'days' }, now, 'UTC')).toBe(now);
    expect(nextWakeTime({ mode: 'until', at: '2026-03-01T00:00:00Z' }, now, 'UTC')).toBe(now);
    expect(iso(nextWakeTime({ mode: 'until', at: '2026-04-01T09:00:00-04:00' }, now, 'UTC'))).toBe(
      '2026-04-01T13:00:00.000Z',
    );
  });
});

const zones = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'America/St_Johns',
  'Pacific/Chatham',
];
const instants = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2028, 0, 1) });
const clockText = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const minutesOf = (t: { hour: number; minute: number }) => t.hour * 60 + t.minute;

describe('time-zone properties', () => {
  it('a clock reading maps back to the earliest instant that shows it', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), (ms, zone) => {
        const minute = Math.floor(ms / 60_000) * 60_000;
        const local = localTimeAt(minute, zone);
        const back = zonedToInstant(local, local.hour, local.minute, zone).getTime();
        expect(back).toBeLessThanOrEqual(minute);
        expect(minute - back).toBeLessThanOrEqual(3_600_000); // at most one overlap earlier
        const again = localTimeAt(back, zone);
        expect([again.year, again.month, again.day, again.hour, again.minute]).toEqual([
          local.year,
          local.month,
          local.day,
          local.hour,
          local.minute,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('a weekday wait ends at or after now, inside a window, and no window minute comes before it', () => {
    fc.assert(
      fc.property(
        instants,
        fc.constantFrom(...zones),
        fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
        clockText,
        clockText,
        (ms, zone, days, from, to) => {
          const now = new Date(ms);
          const wake = nextWakeTime({ mode: 'weekday', days, from, to }, now, zone);
          expect(wake.getTime()).toBeGreaterThanOrEqual(ms);
          expect(wake.getTime() - ms).toBeLessThanOrEqual(8 * 86_400_000);
          const [f, t] = [from, to].map((c) => Number(c.slice(0, 2)) * 60 + Number(c.slice(3)));
          const inWindow = (instant: number) => {
            const local = localTimeAt(instant, zone);
            const clock = minutesOf(local);
            const yesterday = (local.weekday + 6) % 7;
            if (f! < t!) return days.includes(local.weekday) && clock >= f! && clock < t!;
            return (days.includes(local.weekday) && clock >= f!) || (days.includes(yesterday) && clock < t!);
          };
          // The wake time is in a window, or the first moment after a window start skipped by a DST gap.
          const justJumped = localTimeAt(wake.getTime() - 60_000, zone);
          expect(
            inWindow(wake.getTime()) || minutesOf(localTimeAt(wake, zone)) - minutesOf(justJumped) > 1,
          ).toBe(true);
          for (let probe = ms; probe < wake.getTime(); probe += 29 * 60_000)
            expect(inWindow(probe)).toBe(false);
        },
      ),
      { numRuns: 80 },
    );
  });
});
