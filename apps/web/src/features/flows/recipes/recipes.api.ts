import { FlowCreateResponse, RecipeList } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';
import { flowKey, flowListKey } from '../flows.api.ts';

/** GET /v1/recipes: the ready-made flows of the gallery (they never change while the app runs). */
export function useRecipes(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['flows', 'recipes'],
    queryFn: () => api.get('/recipes', { schema: RecipeList }),
    staleTime: Infinity,
    enabled: options.enabled ?? true,
  });
}

/** POST /v1/integrations?recipe={id}: the recipe's flow (switched off) with its steps and its emails as drafts. */
export function useCreateFromRecipe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (recipe: string) =>
      api.post(
        `/integrations?${new URLSearchParams({ recipe }).toString()}`,
        {},
        { schema: FlowCreateResponse },
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(flowKey(data.integration.id), { integration: data.integration });
      void queryClient.invalidateQueries({ queryKey: flowListKey });
      void queryClient.invalidateQueries({ queryKey: ['folders', 'flows'] });
      // The recipe's emails are new drafts.
      void queryClient.invalidateQueries({ queryKey: ['emails'] });
    },
  });
}
