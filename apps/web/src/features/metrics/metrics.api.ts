import { EmailStatsResponse, allTimeStart, type MetricsPreset } from '@herald/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export interface MetricsFilters {
  period: MetricsPreset;
  emailIds: number[];
  broadcastId: number | null;
  /** One flow's mail (flowIds); the page also shows its goal conversions. */
  flowId?: number | null;
}

/** The query string of GET /v1/emails/stats for these filters; figures per email come with them. */
export function statsQuery(filters: MetricsFilters): string {
  const params = new URLSearchParams({ period: filters.period, groupByEmail: 'true' });
  if (filters.emailIds.length) params.set('emailIds', filters.emailIds.join(','));
  if (filters.broadcastId !== null) params.set('broadcastId', String(filters.broadcastId));
  if (filters.flowId != null) params.set('flowIds', String(filters.flowId));
  return params.toString();
}

/** GET /v1/emails/stats: the last answer stays on screen while the next period or filter loads. */
export function useEmailStats(filters: MetricsFilters, options: { enabled?: boolean } = {}) {
  const query = statsQuery(filters);
  return useQuery({
    queryKey: ['metrics', 'emails', query] as const,
    queryFn: () => api.get(`/emails/stats?${query}`, { schema: EmailStatsResponse }),
    enabled: options.enabled ?? true,
    placeholderData: keepPreviousData,
    // The rollups move every few seconds; a minute-old answer is fresh enough for a report.
    staleTime: 60_000,
  });
}

/**
 * All-time figures of one broadcast or one email (the broadcast and email pages), with clicks per link. All time starts
 * at the spec's all-time start; the figures come from the same rollups as the Metrics page.
 */
export function useAllTimeStats(
  subject: { broadcastId: number } | { emailId: number },
  options: { enabled?: boolean } = {},
) {
  const params = new URLSearchParams({ startDate: allTimeStart });
  if ('broadcastId' in subject) params.set('broadcastId', String(subject.broadcastId));
  else params.set('emailIds', String(subject.emailId));
  const query = params.toString();
  return useQuery({
    queryKey: ['metrics', 'emails', query] as const,
    queryFn: () => api.get(`/emails/stats?${query}`, { schema: EmailStatsResponse }),
    enabled: options.enabled ?? true,
    staleTime: 30_000,
  });
}
