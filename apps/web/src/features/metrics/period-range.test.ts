import { describe, expect, it } from 'vitest';
import { periodRange } from './period-range.ts';

/** Intl puts thin spaces around the dash of a range; written here as plain spaces. */
const plain = (text: string) => text.replace(/\s/g, ' ');

describe('periodRange', () => {
  it('reads the last 30 days asked on Dec 5 as Nov 6 – Dec 5: today included', () => {
    // GET /v1/emails/stats at 10:41 in Berlin on Dec 5: from Nov 6 00:00 Berlin to now.
    expect(
      plain(periodRange('2026-11-05T23:00:00.000Z', '2026-12-05T09:41:00.000Z', 'Europe/Berlin', 'en-US')),
    ).toBe('Nov 6 – Dec 5, 2026');
    // The same instants read in Kiritimati (14 hours ahead of UTC) are another pair of days.
    expect(
      plain(
        periodRange('2026-11-05T10:00:00.000Z', '2026-12-05T09:41:00.000Z', 'Pacific/Kiritimati', 'en-US'),
      ),
    ).toBe('Nov 6 – Dec 5, 2026');
  });

  it('shows a period ending at midnight up to the day before, one day once, and years when they differ', () => {
    expect(plain(periodRange('2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 'UTC', 'en-US'))).toBe(
      'Nov 1 – 30, 2026',
    );
    expect(plain(periodRange('2026-12-05T00:00:00.000Z', '2026-12-05T00:00:00.001Z', 'UTC', 'en-US'))).toBe(
      'Dec 5, 2026',
    );
    expect(plain(periodRange('2025-12-06T00:00:00.000Z', '2026-01-05T08:00:00.000Z', 'UTC', 'en-US'))).toBe(
      'Dec 6, 2025 – Jan 5, 2026',
    );
  });
});
