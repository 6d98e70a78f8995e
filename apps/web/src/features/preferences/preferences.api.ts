import { CommunicationPreferences, UnsubscribeResponse, type PreferenceValue } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

/** The token travels in the query string exactly as the email's link carried it. */
const withToken = (path: string, token: string) => `${path}?token=${encodeURIComponent(token)}`;
const preferencesKey = (token: string) => ['preferences', token] as const;

/** A recipient's preferences, read with the token of their link (no session). */
export function usePreferences(token: string) {
  return useQuery({
    queryKey: preferencesKey(token),
    queryFn: () =>
      api.get(withToken('/communication-preferences', token), { schema: CommunicationPreferences }),
    enabled: token.length > 0,
    retry: false,
    refetchOnWindowFocus: false,
  });
}

export function useSavePreferences(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (choices: Record<string, PreferenceValue>) =>
      api.post<void>(withToken('/communication-preferences', token), choices),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: preferencesKey(token) }),
  });
}

/** Unsubscribe from all marketing categories. */
export function useUnsubscribeFromAll(token: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<void>(withToken('/communication-preferences/all', token)),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: preferencesKey(token) }),
  });
}

/** The unsubscribe link's page: one POST, made once per token. */
export function useUnsubscribe() {
  return useMutation({
    mutationFn: (token: string) =>
      api.post(withToken('/unsubscribe', token), undefined, { schema: UnsubscribeResponse }),
  });
}

export const preferencesPath = (token: string) => withToken('/public/subscription-preferences', token);
