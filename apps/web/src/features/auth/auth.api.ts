import type { MessageResponse, SignInResponse } from '@herald/contracts';
import type { z } from 'zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { markSignedIn } from '../account/account.api.ts';
import { isSecondFactorChallenge } from '../two-factor/two-factor.api.ts';

/** A 401 here is a wrong password, not a lost session. */
const keepSession = { keepSessionOn401: true };

/** A sign-in that answered the account started a session; one that asks for a second factor did not yet. */
function onSignIn(queryClient: ReturnType<typeof useQueryClient>, result: SignInResponse) {
  if (!isSecondFactorChallenge(result)) markSignedIn(queryClient, result);
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) =>
      api.post<SignInResponse>('/accounts/login/', body),
    onSuccess: (result) => onSignIn(queryClient, result),
    meta: keepSession,
  });
}

export function useGoogleLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (idToken: string) => api.post<SignInResponse>('/accounts/login/google', { idToken }),
    onSuccess: (result) => onSignIn(queryClient, result),
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
      api.post<SignInResponse>('/accounts/reset-password', body),
    onSuccess: (result) => onSignIn(queryClient, result),
    meta: keepSession,
  });
}
