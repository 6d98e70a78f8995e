/** Date values in conditions: YYYY-MM-DD (a UTC day) or an ISO date-time with offset. */
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** The instant a condition's date starts at, or null when the text is not a valid date. */
export function parseConditionDate(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  if (dayPattern.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    // Reject days that roll over (2024-02-30 would become March 1st).
    return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date;
  }
  if (dateTimePattern.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

/** True for a date-only value (a whole UTC day). */
export function isWholeDay(value: string): boolean {
  return dayPattern.test(value);
}

/** [start, end) of the day or instant a condition names: a whole day for YYYY-MM-DD, one millisecond otherwise. */
export function dateRange(value: string): { start: Date; end: Date } {
  const start = parseConditionDate(value)!;
  return { start, end: new Date(start.getTime() + (isWholeDay(value) ? 86_400_000 : 1)) };
}

/** Whole days from a condition value (number or numeric text), or null. */
export function parseDays(value: unknown): number | null {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n >= 0 && n <= 36_500 ? n : null;
}
