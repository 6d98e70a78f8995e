import {
  EventNames,
  ExplainResult,
  SegmentList,
  SegmentPeople,
  SegmentPreview,
  SegmentSaved,
  type ConditionNode,
  type Segment,
} from '@herald/contracts';
import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const segmentsKey = ['segments'] as const;
// A segment's people and count sit under the people lists' key, so every change to people refreshes them.
export const segmentPeopleKey = (id: number, sort: string, order: string) =>
  ['people', 'search', 'segment', id, sort, order] as const;
export const segmentPreviewKey = (id: number) => ['people', 'search', 'segment-count', id] as const;
/** A user segment's address; the folder-item parameter names the item selected in the folder tree (docs/segments.md). */
export const segmentPath = (id: number | string) => `/segments/${id}?segments-folder-item=${id}`;
/** Segment people page size; a further page appends. */
export const segmentPageSize = 100;
/** Segment create and update run one at a time (docs/segments.md). */
const segmentWrites = ['segments', 'write'] as const;

/** GET /v1/segments: automatic segments first, then the account's own. */
export function useSegments(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: segmentsKey,
    queryFn: () => api.get('/segments', { schema: SegmentList }),
    enabled: options.enabled ?? true,
    staleTime: 10_000,
    // A new segment has no count until the worker has built it (seconds): ask again until it has one.
    refetchInterval: (query) =>
      query.state.data?.segments.some((s) => !s.autoSegment && s.memberCount === null) ? 3000 : false,
  });
}

/**
 * GET /v1/segments/{id}/people: one query key per segment, sort and order, so a new sort starts again
 * at the first page and an answer for an older sort never reaches the table.
 */
export function useSegmentPeople(
  id: number | null,
  sort: string,
  order: 'asc' | 'desc',
  options: { enabled?: boolean } = {},
) {
  return useInfiniteQuery({
    queryKey: segmentPeopleKey(id ?? 0, sort, order),
    queryFn: ({ pageParam, signal }) =>
      api.get(
        `/segments/${id}/people?${new URLSearchParams({ limit: String(segmentPageSize), offset: String(pageParam), sort, order }).toString()}`,
        { schema: SegmentPeople, signal },
      ),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => (last.hasMore ? pages.length * segmentPageSize : undefined),
    enabled: id !== null && (options.enabled ?? true),
  });
}

/** GET /v1/segments/{id}/preview: how many people are in the segment now. */
export function useSegmentCount(id: number | null, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: segmentPreviewKey(id ?? 0),
    queryFn: ({ signal }) => api.get(`/segments/${id}/preview`, { schema: SegmentPreview, signal }),
    enabled: id !== null && (options.enabled ?? true),
  });
}

/** POST /v1/segments/preview: the live count of a tree being edited (the newest tree wins). */
export function useConditionsCount(conditions: ConditionNode[] | null, segmentId: number | undefined) {
  return useQuery({
    queryKey: ['segments', 'live-count', segmentId ?? 0, JSON.stringify(conditions)],
    queryFn: ({ signal }) =>
      api.post(
        '/segments/preview',
        { conditions, ...(segmentId ? { segmentId } : {}) },
        { schema: SegmentPreview, signal },
      ),
    enabled: conditions !== null,
    placeholderData: keepPreviousData,
    // The app's rule applies: an invalid tree (4xx) shows at once, 'still building' (503) is asked again.
  });
}

/** GET /v1/segments/event-names: suggestions for the event condition. */
export function useEventNames(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['segments', 'event-names'],
    queryFn: () => api.get('/segments/event-names', { schema: EventNames }),
    staleTime: 60_000,
    enabled: options.enabled ?? true,
  });
}

function useRefreshSegments() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: segmentsKey });
    void queryClient.invalidateQueries({ queryKey: ['people', 'search'] });
  };
}

/** POST /v1/segments/: a new segment (name, colour), queued behind any other segment write. */
export function useCreateSegment() {
  const refresh = useRefreshSegments();
  return useMutation({
    mutationKey: segmentWrites,
    scope: { id: 'segment-writes' },
    mutationFn: (body: { name: string; color?: string; conditions?: ConditionNode[] }) =>
      api.post('/segments/', body, { schema: SegmentSaved }),
    onSuccess: refresh,
  });
}

/** PATCH /v1/segments/{id}: name, colour and conditions, queued behind any other segment write. */
export function useSaveSegment() {
  const refresh = useRefreshSegments();
  return useMutation({
    mutationKey: segmentWrites,
    scope: { id: 'segment-writes' },
    mutationFn: (segment: Pick<Segment, 'id' | 'name' | 'color' | 'conditions'>) =>
      api.patch(
        `/segments/${segment.id}`,
        { id: segment.id, name: segment.name, color: segment.color, conditions: segment.conditions },
        { schema: SegmentSaved },
      ),
    onSuccess: refresh,
  });
}

/** DELETE /v1/segments/{id}. */
export function useDeleteSegment() {
  const refresh = useRefreshSegments();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/segments/${id}`),
    onSuccess: refresh,
  });
}

/** POST /v1/segments/{id}/explain: each condition's verdict for one person. */
export function useExplain(segmentId: number) {
  return useMutation({
    mutationFn: (body: { personId: number; conditions?: ConditionNode[] }) =>
      api.post(`/segments/${segmentId}/explain`, body, { schema: ExplainResult }),
  });
}
