import { FlowConversions, FlowGoal, type ConditionNode } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, request } from '../../../lib/api.ts';
import { countsRefreshMs } from '../flows.api.ts';

const goalKey = (flowId: number) => ['flows', 'goal', flowId] as const;
const conversionsKey = (flowId: number) => ['flows', 'conversions', flowId] as const;

/** GET /v1/integrations/{id}/goal. */
export function useFlowGoal(flowId: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: goalKey(flowId),
    queryFn: () => api.get(`/integrations/${flowId}/goal`, { schema: FlowGoal }),
    enabled: (options.enabled ?? true) && flowId > 0,
  });
}

/** PUT /v1/integrations/{id}/goal: set the goal, or remove it with null. */
export function useSetFlowGoal(flowId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (conditions: ConditionNode[] | null) =>
      request('PUT', `/integrations/${flowId}/goal`, {
        body: { conditions },
        schema: FlowGoal.extend({ message: z.string() }),
      }),
    onSuccess: (data) => {
      queryClient.setQueryData(goalKey(flowId), { conditions: data.conditions });
      void queryClient.invalidateQueries({ queryKey: conversionsKey(flowId) });
    },
  });
}

/** GET /v1/integrations/{id}/conversions: totals and per step; asked again as people move, like the people counts. */
export function useFlowConversions(flowId: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: conversionsKey(flowId),
    queryFn: () => api.get(`/integrations/${flowId}/conversions`, { schema: FlowConversions }),
    enabled: (options.enabled ?? true) && flowId > 0,
    refetchInterval: countsRefreshMs,
    retry: false,
  });
}
