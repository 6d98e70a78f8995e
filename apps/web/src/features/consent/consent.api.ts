import { ConfirmResponse, ConsentHistory, DoubleOptInSettings, ResendResponse } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const consentKey = (personId: number) => ['people', 'consent', personId] as const;

/** GET /v1/people/{id}/consent: where the person stands on double opt-in and their consent history. */
export function useConsentHistory(personId: number) {
  return useQuery({
    queryKey: consentKey(personId),
    queryFn: () => api.get(`/people/${personId}/consent`, { schema: ConsentHistory }),
  });
}

/** The confirmation page's one POST (the token of the email's link). */
export function useConfirmSubscription() {
  return useMutation({
    mutationFn: (token: string) =>
      api.post('/public/confirm-subscription', { token }, { schema: ConfirmResponse }),
  });
}

export function useResendConfirmation() {
  return useMutation({
    mutationFn: (token: string) =>
      api.post('/public/confirm-subscription/resend', { token }, { schema: ResendResponse }),
  });
}

/** POST /v1/people/{id}/consent/resend: a team member sends a waiting person the confirmation email again. */
export function useResendToPerson(personId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post(`/people/${personId}/consent/resend`, undefined, { schema: ResendResponse }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: consentKey(personId) }),
  });
}

const settingsKey = ['settings', 'double-opt-in'] as const;

/** GET /v1/settings/double-opt-in. */
export function useDoubleOptIn() {
  return useQuery({
    queryKey: settingsKey,
    queryFn: () => api.get('/settings/double-opt-in', { schema: DoubleOptInSettings }),
  });
}

export function useSaveDoubleOptIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: DoubleOptInSettings) =>
      api.put('/settings/double-opt-in', body, { schema: DoubleOptInSettings }),
    onSuccess: (data) => queryClient.setQueryData(settingsKey, data),
  });
}
