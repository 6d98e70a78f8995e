import { AiSuggestionList, type AiWriterRequest } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

const suggestionsKey = ['ai-writer', 'suggestions'] as const;

/** GET /v1/ai-writer: the account's suggestions, newest first. */
export function useAiSuggestions(options: { enabled: boolean }) {
  return useQuery({
    queryKey: suggestionsKey,
    queryFn: () => api.get('/ai-writer', { schema: AiSuggestionList }),
    enabled: options.enabled,
    retry: false,
  });
}

/** POST /v1/ai-writer: the new suggestions go to the top of the list at once. */
export function useGenerateSuggestions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AiWriterRequest) => api.post('/ai-writer', body, { schema: AiSuggestionList }),
    onSuccess: (created) => {
      queryClient.setQueryData<AiSuggestionList>(suggestionsKey, (current) => ({
        suggestions: [
          ...created.suggestions,
          ...(current?.suggestions ?? []).filter((s) => !created.suggestions.some((c) => c.id === s.id)),
        ],
      }));
    },
  });
}
