import {
  CategoryCounts,
  CategoryList,
  CategoryResponse,
  CategoryUpdateResponse,
  type CategoryType,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const categoriesKey = ['categories', 'list'] as const;
const countsKey = ['categories', 'counts'] as const;
/** Category changes run one at a time, so a "Make default" never races an archive. */
const categoryScope = { id: 'categories' };

/** Every category of the account, archived ones included (isArchived). */
export function useCategories(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: categoriesKey,
    queryFn: () => api.get('/settings/communication-categories', { schema: CategoryList }),
    enabled: options.enabled ?? true,
  });
}

/** Per category: emails filed under it, people opted in, people opted out. */
export function useCategoryCounts(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: countsKey,
    queryFn: () => api.get('/settings/communication-categories/counts', { schema: CategoryCounts }),
    enabled: options.enabled ?? true,
  });
}

export interface NewCategory {
  name: string;
  description: string;
  type: CategoryType;
}

export function useCreateCategory() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: categoryScope,
    mutationFn: (body: NewCategory) =>
      api.post('/settings/communication-categories', body, { schema: CategoryResponse }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['categories'] }),
  });
}

export interface CategoryChanges {
  name?: string;
  description?: string;
  isArchived?: boolean;
  isDefault?: true;
}

export function useUpdateCategory() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: categoryScope,
    mutationFn: ({ id, changes }: { id: number; changes: CategoryChanges }) =>
      api.patch(`/settings/communication-categories/${id}`, changes, { schema: CategoryUpdateResponse }),
    // Making one category the default changes the flag on another, so the whole list is read again.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['categories'] }),
  });
}
