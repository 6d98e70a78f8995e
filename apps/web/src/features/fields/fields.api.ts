import { FieldList, PersonField, type PersonFieldType } from '@herald/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../lib/api.ts';
import { fieldsKey } from '../people/people.api.ts';

/** Field changes run one at a time (docs/people.md: single-slot queue). */
export const fieldsMutationKey = ['field-change'] as const;

export const fieldMessages = {
  created: '✅ Field created.',
  saved: '✅ Field saved.',
  deleted: '✅ Field deleted.',
  createFailed: "We couldn't create these fields.",
  editFailed: "We couldn't edit this field.",
  deleteFailed: "We couldn't delete this field.",
} as const;

export interface FieldInput {
  name: string;
  title?: string;
  type: PersonFieldType;
  enum?: string[];
  enumNames?: string[];
  allowNewEnumValues?: boolean;
  tooltip?: string;
}

type Fields = z.infer<typeof FieldList>;

export function useCreateField() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: fieldsMutationKey,
    scope: { id: 'fields' },
    mutationFn: (item: FieldInput) => api.post('/fields', { items: [item] }, { schema: FieldList }),
    onSuccess: ({ items }) => {
      queryClient.setQueryData<Fields>(fieldsKey, (list) =>
        list ? { items: [...list.items, ...items] } : list,
      );
      void queryClient.invalidateQueries({ queryKey: fieldsKey });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'personFields'] });
    },
  });
}

export function useUpdateField() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: fieldsMutationKey,
    scope: { id: 'fields' },
    mutationFn: ({ name, ...body }: Omit<FieldInput, 'type'>) =>
      api.patch(`/fields/${encodeURIComponent(name)}`, body, { schema: z.object({ item: PersonField }) }),
    onSuccess: ({ item }) => {
      queryClient.setQueryData<Fields>(fieldsKey, (list) =>
        list ? { items: list.items.map((f) => (f.name === item.name ? item : f)) } : list,
      );
      void queryClient.invalidateQueries({ queryKey: fieldsKey });
    },
  });
}

export function useDeleteField() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: fieldsMutationKey,
    scope: { id: 'fields' },
    mutationFn: (name: string) => api.delete<void>(`/fields/${encodeURIComponent(name)}`),
    onSuccess: (_data, name) => {
      queryClient.setQueryData<Fields>(fieldsKey, (list) =>
        list ? { items: list.items.filter((f) => f.name !== name) } : list,
      );
      void queryClient.invalidateQueries({ queryKey: fieldsKey });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'personFields'] });
    },
  });
}
