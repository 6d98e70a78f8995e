import { Tag, TagCounts, TagList } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api.ts';

export const tagsKey = ['tags', 'list'] as const;
export const tagCountsKey = ['tags', 'counts'] as const;
/** Tag changes run one at a time (docs/people.md). */
const tagScope = { id: 'tags' };

type TagRow = z.infer<typeof Tag>;
type Tags = { tags: TagRow[] };

export function useTags(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: tagsKey,
    queryFn: () => api.get('/tags-management', { schema: TagList }),
    enabled: options.enabled ?? true,
  });
}

export function useTagCounts(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: tagCountsKey,
    queryFn: () => api.get('/tags-management/counts', { schema: TagCounts }),
    enabled: options.enabled ?? true,
  });
}

/** Optimistic: the tag shows at once and goes away again if the server refuses. */
export function useCreateTag() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: tagScope,
    mutationFn: (input: { tag: string; description?: string }) =>
      api.post('/tags-management', { tags: [input] }, { schema: TagList }),
    onMutate: async (input) => {
      await queryClient.cancelQueries({ queryKey: tagsKey });
      const previous = queryClient.getQueryData<Tags>(tagsKey);
      const optimistic: TagRow = {
        tag: input.tag,
        description: input.description ?? null,
        createdAt: new Date().toISOString(),
      };
      queryClient.setQueryData<Tags>(tagsKey, (list) => (list ? { tags: [...list.tags, optimistic] } : list));
      return { previous };
    },
    onError: (_error, _input, context) => {
      if (context?.previous) queryClient.setQueryData<Tags>(tagsKey, context.previous);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'tags'] });
    },
  });
}

export function useUpdateTag() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: tagScope,
    mutationFn: ({ current, ...body }: { current: string; tag?: string; description?: string }) =>
      api.patch(`/tags-management/${encodeURIComponent(current)}`, body, { schema: z.object({ tag: Tag }) }),
    onSuccess: ({ tag }, { current }) => {
      queryClient.setQueryData<Tags>(tagsKey, (list) =>
        list ? { tags: list.tags.map((t) => (t.tag === current ? tag : t)) } : list,
      );
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'tags'] });
      void queryClient.invalidateQueries({ queryKey: ['people'] });
    },
  });
}

/** Optimistic delete, put back when the server refuses. */
export function useDeleteTag() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: tagScope,
    mutationFn: (tag: string) => api.delete<void>(`/tags-management/${encodeURIComponent(tag)}`),
    onMutate: async (tag) => {
      await queryClient.cancelQueries({ queryKey: tagsKey });
      const previous = queryClient.getQueryData<Tags>(tagsKey);
      queryClient.setQueryData<Tags>(tagsKey, (list) =>
        list ? { tags: list.tags.filter((t) => t.tag !== tag) } : list,
      );
      return { previous };
    },
    onError: (_error, _tag, context) => {
      if (context?.previous) queryClient.setQueryData<Tags>(tagsKey, context.previous);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['tags'] });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'tags'] });
      void queryClient.invalidateQueries({ queryKey: ['people'] });
    },
  });
}
