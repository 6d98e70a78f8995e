import { z } from 'zod';
import { TimeZone } from './accounts.ts';

/**
 * Email metrics: GET /v1/emails/stats over the spec's eleven presets (docs/tracking-and-metrics.md) or a date
 * range, read from rollups the server keeps current from email events.
 */

/**
 * The rolling presets (last7Days, last30Days, last90Days) are the last 7/30/90 local days with today, ending now; the
 * calendar ones ('last …') end where the current week, month, quarter or year starts and the 'this …' ones end now
 * (docs/tracking-and-metrics.md, Email metrics, "Periods").
 */
export const metricsPresets = [
  'last7Days',
  'last30Days',
  'last90Days',
  'lastWeek',
  'thisWeek',
  'lastMonth',
  'thisMonth',
  'lastQuarter',
  'thisQuarter',
  'lastYear',
  'thisYear',
] as const;
export type MetricsPreset = (typeof metricsPresets)[number];
export const defaultMetricsPreset: MetricsPreset = 'last30Days';

export const metricsPresetLabels: Record<MetricsPreset, string> = {
  last7Days: 'Last 7 days',
  last30Days: 'Last 30 days',
  last90Days: 'Last 90 days',
  lastWeek: 'Last week',
  thisWeek: 'This week',
  lastMonth: 'Last month',
  thisMonth: 'This month',
  lastQuarter: 'Last quarter',
  thisQuarter: 'This quarter',
  lastYear: 'Last year',
  thisYear: 'This year',
};

export const metricsBuckets = ['hour', 'day', 'week'] as const;
export type MetricsBucket = (typeof metricsBuckets)[number];

/** All-time metrics start here (docs/tracking-and-metrics.md). */
export const allTimeStart = '2017-01-01';

export const metricsMessages = {
  unknownPreset: `Unknown period. Use one of: ${metricsPresets.join(', ')}.`,
  badDate: 'Use a date such as 2026-01-31 or a date and time such as 2026-01-31T09:00:00Z.',
  startAfterEnd: 'The start date must be before the end date.',
  unknownTimeZone: 'Unknown time zone.',
  loadError: 'Error while getting email stats.',
  noData: 'No emails were sent, opened or clicked in this period.',
} as const;

const dateOrInstant = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: metricsMessages.badDate,
});
const id = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 53);
/** A list in a query string: repeated (`a=1&a=2`), bracketed (`a[]=1`) or comma-separated (`a=1,2`). */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value) =>
      value === undefined
        ? undefined
        : ([] as unknown[])
            .concat(value)
            .flatMap((v) => (typeof v === 'string' ? v.split(',').filter(Boolean) : [v])),
    z.array(item).max(500).optional(),
  );
const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** GET /v1/emails/stats (docs/tracking-and-metrics.md). */
export const EmailStatsQuery = z
  .object({
    period: z.enum(metricsPresets, { error: metricsMessages.unknownPreset }).optional(),
    startDate: dateOrInstant.optional(),
    endDate: dateOrInstant.optional(),
    flowIds: listOf(id),
    'flowIds[]': listOf(id),
    emailIds: listOf(id),
    'emailIds[]': listOf(id),
    broadcastId: id.optional(),
    stepId: listOf(z.string().trim().min(1).max(100)),
    'stepId[]': listOf(z.string().trim().min(1).max(100)),
    timezone: TimeZone.optional(),
    abTest: flag.optional(),
    groupByEmail: flag.optional(),
  })
  .transform(({ 'flowIds[]': flowList, 'emailIds[]': emailList, 'stepId[]': stepList, ...query }) => ({
    ...query,
    flowIds: [...(query.flowIds ?? []), ...(flowList ?? [])],
    emailIds: [...(query.emailIds ?? []), ...(emailList ?? [])],
    stepIds: [...(query.stepId ?? []), ...(stepList ?? [])],
  }));
export type EmailStatsQuery = z.infer<typeof EmailStatsQuery>;

/** The figures of one bucket, email, variant or the whole period. Rates are unique opens (clicks) over delivered. */
export const EmailFigures = z.object({
  sent: z.number(),
  delivered: z.number(),
  opened: z.number(),
  clicked: z.number(),
  uniqueOpens: z.number(),
  uniqueClicks: z.number(),
  openRate: z.number(),
  clickRate: z.number(),
  unsubscribed: z.number(),
  bounced: z.number(),
  complained: z.number(),
});
export type EmailFigures = z.infer<typeof EmailFigures>;

export const EmailStatsBucket = EmailFigures.extend({ start: z.string(), end: z.string() });
export type EmailStatsBucket = z.infer<typeof EmailStatsBucket>;

export const EmailMetricsStats = z.object({
  period: z.enum(metricsPresets).nullable(),
  bucket: z.enum(metricsBuckets),
  timezone: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  totals: EmailFigures,
  series: z.array(EmailStatsBucket),
  /** With groupByEmail: the figures of each email. */
  emails: z.array(EmailFigures.extend({ emailId: z.number(), name: z.string().nullable() })).optional(),
  /** With abTest: the figures of each A/B variant (1 = A, 2 = B...; 0 = no test). */
  variants: z.array(EmailFigures.extend({ variant: z.number() })).optional(),
});
export type EmailMetricsStats = z.infer<typeof EmailMetricsStats>;

export const LinkClicks = z.object({ link: z.string(), clicks: z.number() });
export type LinkClicks = z.infer<typeof LinkClicks>;

/** With stepId[] the answer is the stats alone; otherwise the stats and clicks per link (docs/tracking-and-metrics.md). */
export const EmailStatsResponse = z.object({
  stats: EmailMetricsStats,
  clicks: z.array(LinkClicks).optional(),
});
export type EmailStatsResponse = z.infer<typeof EmailStatsResponse>;
