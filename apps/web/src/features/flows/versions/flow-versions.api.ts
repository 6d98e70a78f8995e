import { FlowVersionList, FlowVersionResponse, RestoreFlowVersionResponse } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';
import { flowKey, flowListKey } from '../flows.api.ts';

const versionsKey = (flowId: number) => ['flows', 'versions', flowId] as const;

/** GET /v1/integrations/{id}/versions: newest first, and the one the flow now matches. */
export function useFlowVersions(flowId: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: versionsKey(flowId),
    queryFn: () => api.get(`/integrations/${flowId}/versions`, { schema: FlowVersionList }),
    enabled: options.enabled ?? true,
  });
}

/** GET /v1/integrations/{id}/versions/{number}?compare={older}: the newer version and what changed from the older. */
export function useVersionComparison(flowId: number, pair: { older: number; newer: number } | null) {
  return useQuery({
    queryKey: [...versionsKey(flowId), 'compare', pair?.older, pair?.newer],
    queryFn: () =>
      api.get(`/integrations/${flowId}/versions/${pair!.newer}?compare=${pair!.older}`, {
        schema: FlowVersionResponse,
      }),
    enabled: pair !== null,
    staleTime: Infinity,
  });
}

/** POST /v1/integrations/{id}/versions/{number}/restore: the flow comes back as that version. */
export function useRestoreVersion(flowId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ number, confirmActiveEdit }: { number: number; confirmActiveEdit: boolean }) =>
      api.post(
        `/integrations/${flowId}/versions/${number}/restore`,
        { confirmActiveEdit },
        { schema: RestoreFlowVersionResponse },
      ),
    onSuccess: (data) => {
      queryClient.setQueryData(flowKey(flowId), { integration: data.integration });
      void queryClient.invalidateQueries({ queryKey: versionsKey(flowId) });
      void queryClient.invalidateQueries({ queryKey: flowListKey });
    },
  });
}
