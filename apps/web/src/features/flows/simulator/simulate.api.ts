import { SimulateResult, type SimulateBody } from '@herald/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';

/** POST /v1/integrations/{id}/simulate: a test run; nothing is sent or written, so it is a mutation only by its verb. */
export function useSimulate(flowId: number) {
  return useMutation({
    mutationFn: (body: SimulateBody) =>
      api.post(`/integrations/${flowId}/simulate`, body, { schema: SimulateResult }),
  });
}
