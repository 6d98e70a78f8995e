import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dateFieldFireTime,
  fieldCalendarDate,
  localTimeAt,
  nextAnnualFire,
  nextDateFieldFire,
} from '../src/index.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('date field triggers', () => {
  it('fires on the field’s date shifted by the offset, at the time in the person’s zone', () => {
    expect(iso(dateFieldFireTime('2026-04-10', -3, '09:30', 'Europe/Berlin'))).toBe(
      '2026-04-07T07:30:00.000Z',
    );
    expect(iso(dateFieldFireTime('2026-03-27', 2, '09:00', 'America/New_York'))).toBe(
      '2026-03-29T13:00:00.000Z',
    );
  });

  it('reads a date-time field as its date on the person’s clock', () => {
    // 23:30 UTC on the 9th is already the 10th in Berlin
    expect(fieldCalendarDate('2026-04-09T23:30:00Z', 'Europe/Berlin')).toEqual({
      year: 2026,
      month: 4,
      day: 10,
    });
    expect(fieldCalendarDate(new Date('2026-04-09T23:30:00Z'), 'America/New_York')).toEqual({
      year: 2026,
      month: 4,
      day: 9,
    });
  });

  it('refuses what is not a date', () => {
    for (const value of ['2026-02-30', 'soon', '', null, 42, undefined])
      expect(fieldCalendarDate(value, 'UTC')).toBeNull();
    expect(dateFieldFireTime('nope', 0, '09:00', 'UTC')).toBeNull();
  });

  it('next fire: only when it is still to come', () => {
    const now = new Date('2026-04-07T07:30:00Z');
    expect(iso(nextDateFieldFire('2026-04-10', -3, '09:30', 'Europe/Berlin', now))).toBe(
      '2026-04-07T07:30:00.000Z',
    );
    expect(nextDateFieldFire('2026-04-10', -3, '09:29', 'Europe/Berlin', now)).toBeNull();
  });
});

describe('annual triggers', () => {
  const now = new Date('2026-06-15T12:00:00Z');

  it('this year when the anniversary is still to come, else next year', () => {
    expect(iso(nextAnnualFire('1990-07-01', '08:00', 'Europe/Berlin', now))).toBe('2026-07-01T06:00:00.000Z');
    expect(iso(nextAnnualFire('1990-01-20', '08:00', 'America/New_York', now))).toBe(
      '2027-01-20T13:00:00.000Z',
    );
  });

  it('today, later on the clock; today, already past', () => {
    expect(iso(nextAnnualFire('1985-06-15', '14:00', 'UTC', now))).toBe('2026-06-15T14:00:00.000Z');
    expect(iso(nextAnnualFire('1985-06-15', '11:59', 'UTC', now))).toBe('2027-06-15T11:59:00.000Z');
  });

  it('the 29th of February is the 28th in other years, and itself in leap years', () => {
    expect(iso(nextAnnualFire('2000-02-29', '09:00', 'UTC', now))).toBe('2027-02-28T09:00:00.000Z');
    expect(iso(nextAnnualFire('2000-02-29', '09:00', 'UTC', new Date('2027-03-01T00:00:00Z')))).toBe(
      '2028-02-29T09:00:00.000Z',
    );
  });

  it('null without a date', () => expect(nextAnnualFire(null, '09:00', 'UTC', now)).toBeNull());
});

describe('annual triggers: property', () => {
  it('fires within a year at or after now, on the anniversary at the time on the person’s clock', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1940-01-01T00:00:00Z'),
          max: new Date('2025-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2030, 0, 1) }),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'),
        fc.integer({ min: 0, max: 23 }),
        (birthday, nowMs, zone, hour) => {
          const field = birthday.toISOString().slice(0, 10);
          const time = `${String(hour).padStart(2, '0')}:00`;
          const fire = nextAnnualFire(field, time, zone, new Date(nowMs))!;
          expect(fire.getTime()).toBeGreaterThanOrEqual(nowMs);
          expect(fire.getTime() - nowMs).toBeLessThanOrEqual(366 * 86_400_000);
          const local = localTimeAt(fire, zone);
          const [, month, day] = field.split('-').map(Number);
          const isLeapDayMoved = month === 2 && day === 29 && local.day === 28;
          expect([local.month, isLeapDayMoved ? 29 : local.day]).toEqual([month, day]);
          // The clock reads the time, or later when the time fell into a DST gap.
          expect(local.hour * 60 + local.minute).toBeGreaterThanOrEqual(hour * 60);
        },
      ),
      { numRuns: 200 },
    );
  });
});
