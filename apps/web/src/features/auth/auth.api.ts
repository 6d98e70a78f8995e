import { Account, MessageResponse } from '@herald/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { markSignedIn } from '../account/account.api.ts';

/** A 401 here is a wrong password, not a lost session. */
const keepSession = { keepSessionOn401: true };

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => api.post('/accounts/login/', body, { schema: Account }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}

export function useGoogleLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (idToken: string) => api.post('/accounts/login/google', { idToken }, { schema: Account }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}

export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: (email: string) => api.post('/accounts/request-reset-password', { email }, { schema: MessageResponse }),
  });
}

export function useResetPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password: string }) =>
      api.post('/accounts/reset-password', body, { schema: Account }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}
