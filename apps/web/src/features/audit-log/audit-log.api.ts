import { AuditLogFacets, AuditLogPage } from '@herald/contracts';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

/** The page's filters as the address keeps them: who (a user id or api-key), what (a resource type), from and to days. */
export interface AuditLogFilter {
  actor: string;
  resourceType: string;
  /** yyyy-mm-dd, the first day shown (from its start, local time). */
  from: string;
  /** yyyy-mm-dd, the last day shown (to its end, local time). */
  to: string;
}

const pageSize = 50;

/** The filters as the API's query: days become instants at the start of `from` and the end of `to`. */
export function auditLogQuery(filter: AuditLogFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.actor) params.set('actor', filter.actor);
  if (filter.resourceType) params.set('resourceType', filter.resourceType);
  const day = (text: string, time: string) => {
    const at = new Date(`${text}T${time}`);
    return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
  };
  const from = filter.from ? day(filter.from, '00:00:00') : undefined;
  const to = filter.to ? day(filter.to, '23:59:59.999') : undefined;
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  return params;
}

/** The CSV of the filtered entries, downloaded by a plain link. */
export function auditLogExportUrl(filter: AuditLogFilter): string {
  const query = auditLogQuery(filter).toString();
  return `/v1/audit-log/export${query ? `?${query}` : ''}`;
}

/** GET /v1/audit-log, newest first, 50 a page; "Load more" follows the cursor. */
export function useAuditLog(filter: AuditLogFilter, options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: ['audit-log', 'entries', filter],
    queryFn: ({ pageParam, signal }) => {
      const params = auditLogQuery(filter);
      params.set('limit', String(pageSize));
      if (pageParam) params.set('cursor', pageParam);
      return api.get(`/audit-log?${params.toString()}`, { schema: AuditLogPage, signal });
    },
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: options.enabled ?? true,
  });
}

/** Who and what the log names, for the filters' choices. */
export function useAuditLogFacets(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['audit-log', 'facets'],
    queryFn: ({ signal }) => api.get('/audit-log/facets', { schema: AuditLogFacets, signal }),
    enabled: options.enabled ?? true,
  });
}

/** PUT /v1/audit-log/retention: keep entries this many months (the change is itself an entry). */
export function useSetAuditLogRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (months: number) => api.put('/audit-log/retention', { months }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['audit-log'] }),
  });
}
