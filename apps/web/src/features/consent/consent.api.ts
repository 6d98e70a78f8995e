import { ConfirmResponse, ConsentHistory, ResendResponse } from '@herald/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
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
