import type { ApiKeyInfo, ChangePasswordBody, SessionList } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

export const sessionsKey = ['sessions'] as const;
export const apiKeyInfoKey = ['api-key-info'] as const;

export function useMySessions() {
  return useQuery({ queryKey: sessionsKey, queryFn: () => api.get<SessionList>('/profile/sessions') });
}

export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<void>(`/profile/sessions/${encodeURIComponent(id)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionsKey }),
  });
}

export function useEndOtherSessions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ ended: number }>('/profile/sessions/sign-out-others'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: sessionsKey }),
  });
}

export function useChangePassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordBody) => api.post<void>('/profile/password', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionsKey }),
  });
}

export function useApiKeyInfo() {
  return useQuery({ queryKey: apiKeyInfoKey, queryFn: () => api.get<ApiKeyInfo>('/accounts/api-key') });
}
