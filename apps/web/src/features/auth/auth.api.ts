import type { Account, MessageResponse } from '@herald/contracts';
import type { z } from 'zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { markSignedIn } from '../account/account.api.ts';

/** A 401 here is a wrong password, not a lost session. */
const keepSession = { keepSessionOn401: true };

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => api.post<Account>('/accounts/login/', body),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}

export function useGoogleLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (idToken: string) => api.post<Account>('/accounts/login/google', { idToken }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}

export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: (email: string) =>
      api.post<z.infer<typeof MessageResponse>>('/accounts/request-reset-password', { email }),
  });
}

export function useResetPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password: string }) =>
      api.post<Account>('/accounts/reset-password', body),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}
