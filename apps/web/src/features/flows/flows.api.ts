import {
  EmailStatsResponse,
  allTimeStart,
  FlowList,
  FlowPeopleCounts,
  FlowResponse,
  FlowShareToken,
  ServicesResponse,
  StepPeople,
  type Flow,
  type FlowStatus,
  flowMessages,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage, isApiError } from '../../lib/api.ts';
import { notifyError, notifySuccess } from '../../lib/notify.ts';

export const flowsKey = ['flows'] as const;
export const flowListKey = ['flows', 'list'] as const;
export const flowKey = (id: number) => ['flows', 'one', id] as const;
export const flowCountsKey = (id: number) => ['flows', 'counts', id] as const;
/** People counts move as people pass through: asked again this often while a page shows them. */
export const countsRefreshMs = 15_000;

/** The archived flows' list, under the list's key so that whatever refreshes the list refreshes it too. */
export const archivedFlowListKey = [...flowListKey, 'archived'] as const;

/**
 * GET /v1/integrations: every flow of the account with its steps and links (docs/flows.md: all flows are
 * fetched); the archived ones instead with `archived` (?archived=true).
 */
export function useFlows(options: { enabled?: boolean; archived?: boolean } = {}) {
  const archived = options.archived ?? false;
  return useQuery({
    queryKey: archived ? archivedFlowListKey : flowListKey,
    // A 403 is treated as forbidden: the list comes back empty (docs/flows.md).
    queryFn: () =>
      api
        .get(archived ? '/integrations?archived=true' : '/integrations', { schema: FlowList })
        .catch((error: unknown) => {
          if (isApiError(error) && error.statusCode === 403) return { integrations: [] };
          throw error;
        }),
    enabled: options.enabled ?? true,
  });
}

/** GET /v1/integrations/{id}: only that flow (docs/flows.md); with a share token, read-only (read-only-auth). */
export function useFlow(id: number, shareToken: string | null = null) {
  return useQuery({
    queryKey: shareToken ? [...flowKey(id), shareToken] : flowKey(id),
    queryFn: () =>
      api.get(
        `/integrations/${id}${shareToken ? `?${new URLSearchParams({ 'read-only-auth': shareToken }).toString()}` : ''}`,
        { schema: FlowResponse },
      ),
    enabled: Number.isInteger(id) && id > 0,
    // The editor keeps its own copy while edits are saved; it takes the server's again when nothing is pending.
    refetchOnWindowFocus: false,
  });
}

/** GET /v1/integrations/{id}/people-counts: people at each step now, in the flow now, and all who ever entered. */
export function useFlowPeopleCounts(id: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: flowCountsKey(id),
    queryFn: () => api.get(`/integrations/${id}/people-counts`, { schema: FlowPeopleCounts }),
    enabled: (options.enabled ?? true) && Number.isInteger(id) && id > 0,
    refetchInterval: countsRefreshMs,
    retry: false,
  });
}

/** GET /v1/services: the step catalogue (labels, types, whether a step needs setting up) and each operation's schema. */
export function useServices(options: { enabled?: boolean; shareToken?: string | null } = {}) {
  const token = options.shareToken ?? null;
  return useQuery({
    queryKey: token ? ['flows', 'services', token] : ['flows', 'services'],
    queryFn: () =>
      api.get(`/services${token ? `?${new URLSearchParams({ 'read-only-auth': token }).toString()}` : ''}`, {
        schema: ServicesResponse,
      }),
    enabled: options.enabled ?? true,
    staleTime: Infinity,
  });
}

/** GET /v1/steps/{id}/people: the people waiting at a step now. */
export function useStepPeople(stepId: number | null) {
  return useQuery({
    queryKey: ['flows', 'step-people', stepId],
    queryFn: () => api.get(`/steps/${stepId}/people?limit=100`, { schema: StepPeople }),
    enabled: stepId !== null,
  });
}

/** GET /v1/emails/stats?stepId[]=…: all-time figures of the email a send step sent. */
export function useStepMetrics(stepId: number | null, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['flows', 'step-metrics', stepId],
    queryFn: () =>
      api.get(`/emails/stats?startDate=${allTimeStart}&stepId[]=${stepId}`, { schema: EmailStatsResponse }),
    enabled: stepId !== null && (options.enabled ?? true),
    staleTime: 30_000,
    retry: false,
  });
}

function useRefreshFlows() {
  const queryClient = useQueryClient();
  return (flow?: Flow) => {
    if (flow) queryClient.setQueryData(flowKey(flow.id), { integration: flow });
    void queryClient.invalidateQueries({ queryKey: flowListKey });
    void queryClient.invalidateQueries({ queryKey: ['folders', 'flows'] });
  };
}

/** POST /v1/integrations: a new flow ('Unnamed Flow' when no name). */
export function useCreateFlow() {
  const refresh = useRefreshFlows();
  return useMutation({
    mutationFn: (body: { name?: string }) => api.post('/integrations', body, { schema: FlowResponse }),
    onSuccess: (data) => refresh(data.integration),
  });
}

export type FlowChanges = {
  name?: string;
  status?: FlowStatus;
  archived?: boolean;
  reentry?: Flow['reentry'];
  reentryDays?: number | null;
};

/**
 * PATCH /v1/integrations/{id}. The list shows the change at once and takes the old values back when the
 * server refuses (docs/flows.md: on failure the old status is restored).
 */
export function useUpdateFlow() {
  const queryClient = useQueryClient();
  const refresh = useRefreshFlows();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: FlowChanges }) =>
      api.patch(`/integrations/${id}`, { id, ...changes }, { schema: FlowResponse }),
    onMutate: async ({ id, changes }) => {
      await queryClient.cancelQueries({ queryKey: flowListKey });
      const before = queryClient.getQueryData<{ integrations: Flow[] }>(flowListKey);
      if (before) {
        const integrations = changes.archived
          ? before.integrations.filter((f) => f.id !== id)
          : before.integrations.map((f) => (f.id === id ? { ...f, ...changes } : f));
        queryClient.setQueryData(flowListKey, { integrations });
      }
      return { before };
    },
    onError: (_error, _vars, context) => {
      if (context?.before) queryClient.setQueryData(flowListKey, context.before);
    },
    onSuccess: (data) => refresh(data.integration),
  });
}

/** 'active' is on; every other status is off. */
export const isFlowOn = (status: FlowStatus) => status === 'active';

/** The problems a refused activation names: the server's list when it sends one, else its message. */
export function activationProblems(error: unknown): string[] {
  const listed = isApiError(error)
    ? (error.body.extra as { warnings?: unknown } | undefined)?.warnings
    : undefined;
  if (Array.isArray(listed) && listed.every((w) => typeof w === 'string') && listed.length) return listed;
  return [errorMessage(error, flowMessages.updateFallback)];
}

/**
 * Switches a flow on or off with the spec's toasts ('Flow activated.' / 'Flow deactivated.'); a refusal shows the
 * server's message and resolves to the problems it named, so the page can list them (null when it worked).
 */
export function useToggleFlow() {
  const update = useUpdateFlow();
  const toggle = async (id: number, on: boolean): Promise<string[] | null> => {
    try {
      await update.mutateAsync({ id, changes: { status: on ? 'active' : 'deactivated-user' } });
      notifySuccess(on ? flowMessages.activated : flowMessages.deactivated);
      return null;
    } catch (error) {
      notifyError(error, flowMessages.updateFallback);
      return activationProblems(error);
    }
  };
  return { toggle, isPending: update.isPending, changingId: update.isPending ? update.variables.id : null };
}

/** GET /v1/integrations/{id}/share-token: a token that opens the flow read-only (the share link's flow-read-auth). */
export function useShareToken(id: number | null) {
  return useQuery({
    queryKey: ['flows', 'share-token', id],
    queryFn: () => api.get(`/integrations/${id}/share-token`, { schema: FlowShareToken }),
    enabled: id !== null,
    retry: false,
  });
}
