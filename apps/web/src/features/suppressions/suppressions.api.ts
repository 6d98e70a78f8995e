import {
  AddSuppressionsResponse,
  SuppressionHistory,
  SuppressionList,
  type SuppressionReason,
} from '@herald/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export interface SuppressionFilter {
  search: string;
  reason: SuppressionReason | null;
  page: number;
}

const suppressionsKey = ['suppressions'] as const;
/** The CSV of the whole list (email, reason, source, note, createdAt), downloaded by a plain link. */
export const suppressionsExportUrl = '/v1/suppressions/export';

function queryOf({ search, reason, page }: SuppressionFilter): string {
  const params = new URLSearchParams();
  if (search.trim()) params.set('search', search.trim());
  if (reason) params.set('reason', reason);
  params.set('page', String(page));
  return params.toString();
}

/** One page (100) of the suppression list; the previous page stays on screen while the next loads. */
export function useSuppressions(filter: SuppressionFilter, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...suppressionsKey, 'list', filter],
    queryFn: ({ signal }) => api.get(`/suppressions?${queryOf(filter)}`, { schema: SuppressionList, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}

/** Every addition and removal of one address, newest first as the server gives them. */
export function useSuppressionHistory(email: string | null) {
  return useQuery({
    queryKey: [...suppressionsKey, 'history', email],
    queryFn: () =>
      api.get(`/suppressions/history?email=${encodeURIComponent(email ?? '')}`, {
        schema: SuppressionHistory,
      }),
    enabled: email !== null,
  });
}

function useInvalidateSuppressions() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: suppressionsKey });
    // A suppressed address marks its person unsubscribed.
    void queryClient.invalidateQueries({ queryKey: ['people'] });
  };
}

export function useAddSuppressions() {
  const invalidate = useInvalidateSuppressions();
  return useMutation({
    mutationFn: (body: { emails: string[]; reason: SuppressionReason; note?: string }) =>
      api.post('/suppressions', body, { schema: AddSuppressionsResponse }),
    onSuccess: invalidate,
  });
}

export function useRemoveSuppression() {
  const invalidate = useInvalidateSuppressions();
  return useMutation({
    mutationFn: ({ email, note }: { email: string; note: string }) =>
      api.delete<void>(
        `/suppressions/${encodeURIComponent(email)}${note.trim() ? `?note=${encodeURIComponent(note.trim())}` : ''}`,
      ),
    onSuccess: invalidate,
  });
}
