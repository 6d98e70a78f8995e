import {
  BulkAccepted,
  BulkAction,
  EventPage,
  FieldList,
  Person,
  PersonSearchResult,
  PersonUsers,
  peopleMessages,
  type PersonField,
} from '@herald/contracts';
import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { z } from 'zod';
import { api, isApiError } from '../../lib/api.ts';

export const peopleKey = ['people'] as const;
export const peopleSearchKey = (query: string) => ['people', 'search', query] as const;
export const personKey = (id: number) => ['people', 'one', id] as const;
export const personEventsKey = (id: number) => ['people', 'events', id] as const;
export const personMetricsKey = (id: number) => ['people', 'metrics', id] as const;
export const fieldsKey = ['person-fields'] as const;

/** Searches run only for 2 or more characters (docs/people.md); shorter input lists everyone. */
export const minSearchLength = 2;
/** People search throttle (docs/people.md). */
export const searchThrottleMs = 500;

export function effectiveQuery(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.length >= minSearchLength ? trimmed : '';
}

/**
 * GET /v1/people/search, one query key per search text: a new query starts again at page 0, a
 * further page appends, and answers for an older query never reach the list shown.
 */
export function usePeopleSearch(query: string, options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: peopleSearchKey(query),
    queryFn: ({ pageParam, signal }) =>
      api.get(
        `/people/search?${new URLSearchParams({ query, page: String(pageParam), attributes: 'all' }).toString()}`,
        {
          schema: PersonSearchResult,
          signal,
        },
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.hasMore ? last.page + 1 : undefined),
    enabled: options.enabled ?? true,
  });
}

/** GET /v1/fields: built-in and custom person fields. */
export function usePersonFields(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: fieldsKey,
    queryFn: () => api.get('/fields', { schema: FieldList }),
    enabled: options.enabled ?? true,
    staleTime: 60_000,
  });
}

/** Custom fields can be edited or deleted; system-created, first-class and the unsubscribe reason cannot (docs/people.md). */
export function isEditableField(field: PersonField): boolean {
  return !field.firstClassField && field.createdBy !== 'system' && field.name !== 'unsubscribeReason';
}

export function usePerson(id: number) {
  return useQuery({
    queryKey: personKey(id),
    queryFn: async () => {
      const { users } = await api.get(`/people/${id}`, { schema: PersonUsers });
      return users[0] ?? null;
    },
    enabled: Number.isInteger(id) && id > 0,
  });
}

export function isNotFound(error: unknown): boolean {
  return isApiError(error) && error.statusCode === 404;
}

function putPerson(queryClient: QueryClient, person: Person) {
  queryClient.setQueryData<Person | null>(personKey(person.id), person);
}

export type NewPerson = Record<string, unknown> & { email: string };

export function useCreatePerson() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewPerson) =>
      api.post('/people/?source=manual', body, { schema: z.object({ user: Person }) }),
    onSuccess: ({ user }) => {
      putPerson(queryClient, user);
      void queryClient.invalidateQueries({ queryKey: ['people', 'search'] });
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
    },
  });
}

export function useUpdatePerson(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api.patch(`/people/${id}`, body, { schema: z.object({ user: Person, message: z.string() }) }),
    onSuccess: ({ user }) => {
      putPerson(queryClient, user);
      void queryClient.invalidateQueries({ queryKey: ['people', 'search'] });
    },
  });
}

export function useDeletePerson() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/people?force=true&id=${id}`),
    onSuccess: (_data, id) => {
      queryClient.removeQueries({ queryKey: personKey(id) });
      void queryClient.invalidateQueries({ queryKey: ['people', 'search'] });
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
    },
  });
}

function splitTags(tags: string): string[] {
  return tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

export function tagsOf(person: Pick<Person, 'tags'>): string[] {
  return splitTags(person.tags ?? '');
}

/** POST or DELETE /v1/tags/ for one person, shown at once and put back if the server refuses. */
export function usePersonTag(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['person-tag', id],
    mutationFn: ({ tag, add }: { tag: string; add: boolean }) =>
      add ? api.post('/tags/', { tag, id }) : api.delete('/tags/', { body: { tag, id } }),
    onMutate: async ({ tag, add }) => {
      await queryClient.cancelQueries({ queryKey: personKey(id) });
      const previous = queryClient.getQueryData<Person | null>(personKey(id));
      if (previous) {
        const current = tagsOf(previous);
        const next = add
          ? current.includes(tag)
            ? current
            : [...current, tag]
          : current.filter((t) => t !== tag);
        queryClient.setQueryData<Person | null>(personKey(id), {
          ...previous,
          tags: next.join(', '),
        } as Person);
      }
      return { previous };
    },
    onError: (_error, _vars, context) => {
      if (context?.previous) queryClient.setQueryData(personKey(id), context.previous);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: personKey(id) });
      void queryClient.invalidateQueries({ queryKey: ['people', 'search'] });
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
    },
  });
}

export const eventsPageSize = 50;

export function usePersonEvents(id: number) {
  return useInfiniteQuery({
    queryKey: personEventsKey(id),
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: String(eventsPageSize) });
      if (pageParam) params.set('cursor', pageParam);
      return api.get(`/people/${id}/events?${params.toString()}`, { schema: EventPage, signal });
    },
    initialPageParam: '',
    getNextPageParam: (last) => last.paging.after ?? undefined,
  });
}

const Metrics = z.object({ metrics: z.record(z.string(), z.number()) });

export function usePersonMetrics(id: number) {
  return useQuery({
    queryKey: personMetricsKey(id),
    queryFn: () => api.get(`/people/metrics/${id}`, { schema: Metrics }),
  });
}

/** Bulk work: the server accepts it and runs it later (docs/people.md). */
export interface BulkTarget {
  people?: number[];
  segmentId?: number;
}

export function useBulkTag() {
  return useMutation({
    mutationFn: ({ tag, ...target }: BulkTarget & { tag: string }) => {
      if (!target.people?.length && !target.segmentId) throw new Error(peopleMessages.noPeopleOrSegment.tag);
      return api.post('/tags/bulk', { tag, ...target }, { schema: BulkAccepted });
    },
  });
}

export function useBulkExport() {
  return useMutation({
    mutationFn: (body: BulkTarget & { notifyEmail: string }) => {
      if (!body.people?.length && !body.segmentId) throw new Error(peopleMessages.noPeopleOrSegment.export);
      return api.post('/people/export', body, { schema: BulkAccepted });
    },
  });
}

export function useBulkArchive() {
  return useMutation({
    mutationFn: (target: BulkTarget) => {
      if (!target.people?.length && !target.segmentId)
        throw new Error(peopleMessages.noPeopleOrSegment.archive);
      return api.delete('/people/bulk', { body: target, schema: BulkAccepted });
    },
  });
}

export function useRestorePeople() {
  return useMutation({
    mutationFn: (people: number[]) => api.post('/people/restore', { people }, { schema: BulkAccepted }),
  });
}

/** GET /v1/bulk-actions/{id} every second until the work is done or failed. */
export function useBulkAction(id: number | null) {
  return useQuery({
    queryKey: ['bulk-action', id],
    queryFn: () => api.get(`/bulk-actions/${id}`, { schema: BulkAction }),
    enabled: id !== null,
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === 'done' || status === 'failed' || query.state.error ? false : 1000;
    },
  });
}
