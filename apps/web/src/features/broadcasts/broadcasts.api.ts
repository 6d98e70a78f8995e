import {
  AudienceCount,
  BroadcastActionResponse,
  BroadcastList,
  BroadcastResponse,
  BroadcastStatusResponse,
  isBroadcastPolled,
  type Audience,
  type Broadcast,
  type UpdateBroadcastBody,
} from '@herald/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export type ArchivedFilter = 'false' | 'true';
export const broadcastsKey = ['broadcasts'] as const;
const listKey = (archived: ArchivedFilter) => ['broadcasts', 'list', archived] as const;
const broadcastKey = (id: number) => ['broadcasts', 'one', id] as const;
const statusKey = (id: number) => ['broadcasts', 'status', id] as const;
/** Broadcast changes run through a single-slot queue (docs/broadcasts-and-sending.md). */
const broadcastScope = { id: 'broadcasts' };
/** How often a scheduled or sending broadcast is asked for its progress. */
export const pollIntervalMs = 2_000;

/** GET /v1/broadcasts: refreshed every few seconds while one of them is scheduled or sending. */
export function useBroadcasts(archived: ArchivedFilter, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: listKey(archived),
    queryFn: () => api.get(`/broadcasts?archived=${archived}`, { schema: BroadcastList }),
    enabled: options.enabled ?? true,
    refetchInterval: (query) =>
      query.state.data?.items.some((item) => isBroadcastPolled(item.status)) ? pollIntervalMs * 2 : false,
  });
}

export function useBroadcast(id: number) {
  return useQuery({
    queryKey: broadcastKey(id),
    queryFn: () => api.get(`/broadcasts/${id}`, { schema: BroadcastResponse }),
    enabled: Number.isInteger(id) && id > 0,
  });
}

/**
 * POST /v1/broadcasts/{id}/status while the broadcast is scheduled, sending or A/B testing (docs/broadcasts-and-sending.md):
 * the item with live figures and the delivery rows by status. Each answer also refreshes the item itself.
 */
export function useBroadcastStatus(id: number, status: Broadcast['status'] | undefined) {
  const queryClient = useQueryClient();
  const polled = status !== undefined && isBroadcastPolled(status);
  return useQuery({
    queryKey: statusKey(id),
    queryFn: async () => {
      const answer = await api.post(`/broadcasts/${id}/status`, undefined, {
        schema: BroadcastStatusResponse,
      });
      queryClient.setQueryData(broadcastKey(id), { item: answer.item });
      if (!isBroadcastPolled(answer.item.status))
        void queryClient.invalidateQueries({ queryKey: ['broadcasts', 'list'] });
      return { ...answer, receivedAt: Date.now() };
    },
    enabled: Number.isInteger(id) && id > 0 && status !== undefined && status !== 'draft',
    refetchInterval: polled ? pollIntervalMs : false,
  });
}

function useInvalidateBroadcasts() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ['broadcasts', 'list'] });
    void queryClient.invalidateQueries({ queryKey: ['folders', 'broadcasts'] });
  };
}

export function useCreateBroadcast() {
  const invalidate = useInvalidateBroadcasts();
  return useMutation({
    scope: broadcastScope,
    mutationFn: (body: { name?: string }) => api.post('/broadcasts', body, { schema: BroadcastResponse }),
    onSuccess: invalidate,
  });
}

export type BroadcastChanges = Pick<
  UpdateBroadcastBody,
  'name' | 'emailId' | 'audience' | 'sendAt' | 'time' | 'abTest'
>;

export function useUpdateBroadcast() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateBroadcasts();
  return useMutation({
    scope: broadcastScope,
    mutationFn: ({ id, changes }: { id: number; changes: BroadcastChanges }) =>
      api.patch(`/broadcasts/${id}`, changes, { schema: BroadcastResponse }),
    onSuccess: (data) => {
      queryClient.setQueryData(broadcastKey(data.item.id), data);
      invalidate();
    },
  });
}

/** send, cancel and duplicate answer with the item and the message to show. */
function useBroadcastAction(action: 'send' | 'cancel' | 'duplicate') {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateBroadcasts();
  return useMutation({
    scope: broadcastScope,
    mutationFn: (id: number) =>
      api.post(`/broadcasts/${id}/${action}`, undefined, { schema: BroadcastActionResponse }),
    onSuccess: (data) => {
      queryClient.setQueryData(broadcastKey(data.item.id), { item: data.item });
      void queryClient.invalidateQueries({ queryKey: statusKey(data.item.id) });
      invalidate();
    },
  });
}

export const useSendBroadcast = () => useBroadcastAction('send');
export const useCancelBroadcast = () => useBroadcastAction('cancel');
export const useDuplicateBroadcast = () => useBroadcastAction('duplicate');

/** DELETE /v1/broadcasts/{id} archives it. */
export function useArchiveBroadcast() {
  const invalidate = useInvalidateBroadcasts();
  return useMutation({
    scope: broadcastScope,
    mutationFn: (id: number) => api.delete(`/broadcasts/${id}`),
    onSuccess: invalidate,
  });
}

/**
 * POST /v1/broadcasts/audience-count for the audience being picked. The caller passes the audience after a
 * short pause in typing or clicking (debounced), so each answer is for what is on screen; the last one stays
 * shown while the next loads.
 */
export function useAudienceCount(audience: Audience | null, emailId: number | null) {
  return useQuery({
    queryKey: ['broadcasts', 'audience-count', JSON.stringify(audience), emailId],
    queryFn: ({ signal }) =>
      api.post('/broadcasts/audience-count', { audience, emailId }, { schema: AudienceCount, signal }),
    enabled: audience !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
