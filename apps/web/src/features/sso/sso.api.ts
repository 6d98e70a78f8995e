import type { Account, SaveSsoBody, SsoSettingsResponse } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { markSignedIn } from '../account/account.api.ts';

export const ssoKey = ['sso'] as const;

/** A 401 on the sign-in calls is a refused provider answer, not a lost session. */
const keepSession = { keepSessionOn401: true };

export function useSsoSettings(enabled: boolean) {
  return useQuery({
    queryKey: ssoKey,
    queryFn: () => api.get<SsoSettingsResponse>('/accounts/sso'),
    enabled,
  });
}

export function useSaveSso() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveSsoBody) => api.put<SsoSettingsResponse>('/accounts/sso', body),
    onSuccess: (settings) => queryClient.setQueryData(ssoKey, settings),
  });
}

export function useDeleteSso() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('/accounts/sso'),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ssoKey }),
  });
}

/** The provider's sign-in address for the email's domain (the browser is sent there). */
export function useStartSso() {
  return useMutation({
    mutationFn: (email: string) => api.post<{ redirectUrl: string }>('/accounts/login/sso', { email }),
    meta: keepSession,
  });
}

/** The provider sent the browser back: hand its answer to the server, which starts the session. */
export function useFinishSso() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (query: string) => api.post<Account>('/accounts/login/sso/callback', { query }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}
