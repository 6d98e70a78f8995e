import {
  BroadcastActionResponse,
  QuietHoursResponse,
  QuietHoursSavedResponse,
  type QuietHoursBody,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, request } from '../../lib/api.ts';

const quietHoursKey = ['settings', 'quiet-hours'] as const;

/** GET /v1/settings/quiet-hours */
export function useQuietHours() {
  return useQuery({
    queryKey: quietHoursKey,
    queryFn: () => api.get('/settings/quiet-hours', { schema: QuietHoursResponse }),
  });
}

/** PUT /v1/settings/quiet-hours */
export function useSaveQuietHours() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: QuietHoursBody) =>
      request('PUT', '/settings/quiet-hours', { body, schema: QuietHoursSavedResponse }),
    onSuccess: (data) => queryClient.setQueryData(quietHoursKey, { quietHours: data.quietHours }),
  });
}

/** POST /v1/broadcasts/{id}/pause or /resume; the answer refreshes the broadcast and its progress. */
export function usePauseBroadcast(action: 'pause' | 'resume') {
  const queryClient = useQueryClient();
  return useMutation({
    // The same single-slot queue as every other broadcast change (docs/broadcasts-and-sending.md).
    scope: { id: 'broadcasts' },
    mutationFn: (id: number) =>
      api.post(`/broadcasts/${id}/${action}`, undefined, { schema: BroadcastActionResponse }),
    onSuccess: (data) => {
      queryClient.setQueryData(['broadcasts', 'one', data.item.id], { item: data.item });
      void queryClient.invalidateQueries({ queryKey: ['broadcasts', 'status', data.item.id] });
      void queryClient.invalidateQueries({ queryKey: ['broadcasts', 'list'] });
    },
  });
}
