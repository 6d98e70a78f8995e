import { FlowAttached, FlowCopyPreview, FlowCreateResponse } from '@herald/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';

/** The query string of a copy: the flow, the account copied into, and a share link's token when reading through one. */
export function copyQuery(params: {
  source?: number;
  targetAccount: number | null;
  shareToken: string | null;
}): string {
  const query = new URLSearchParams();
  if (params.source !== undefined) query.set('source', String(params.source));
  if (params.targetAccount !== null) query.set('target-account', String(params.targetAccount));
  if (params.shareToken !== null) query.set('read-only-auth', params.shareToken);
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** GET /v1/integrations/{id}/copy-preview: how many emails, segments and custom fields a copy creates in the target. */
export function useCopyPreview(
  flowId: number | null,
  targetAccount: number | null,
  shareToken: string | null,
) {
  return useQuery({
    queryKey: ['flows', 'copy-preview', flowId, targetAccount, shareToken],
    queryFn: () =>
      api.get(`/integrations/${flowId}/copy-preview${copyQuery({ targetAccount, shareToken })}`, {
        schema: FlowCopyPreview,
      }),
    enabled: flowId !== null && targetAccount !== null,
    retry: false,
  });
}

/** GET /v1/integrations/{id}/attached (with the share token in read-only mode): what the flow's steps use. */
export function useFlowAttached(flowId: number | null, shareToken: string | null) {
  return useQuery({
    queryKey: ['flows', 'attached', flowId, shareToken],
    queryFn: () =>
      api.get(`/integrations/${flowId}/attached${copyQuery({ targetAccount: null, shareToken })}`, {
        schema: FlowAttached,
      }),
    enabled: flowId !== null,
    retry: false,
  });
}

/** POST /v1/integrations?source={id}&target-account={id}[&read-only-auth=…]: the copy, switched off. */
export function useCopyFlow() {
  return useMutation({
    mutationFn: (params: { source: number; targetAccount: number; shareToken: string | null }) =>
      api.post(`/integrations${copyQuery(params)}`, {}, { schema: FlowCreateResponse }),
  });
}
