import type {
  Account,
  RecoveryCodes,
  SecondFactorChallenge,
  SignInResponse,
  TwoFactorPolicy,
  TwoFactorSetup,
  TwoFactorStatus,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { markSignedIn } from '../account/account.api.ts';

export const twoFactorKey = ['two-factor'] as const;

/** A sign-in that still needs its second factor, rather than the account. */
export function isSecondFactorChallenge(result: SignInResponse): result is SecondFactorChallenge {
  return 'secondFactor' in result;
}

/** Where a sign-in goes on: the code page, or setup when the account requires two-factor; the target kept. */
export function secondFactorPath(challenge: SecondFactorChallenge, target: string): string {
  const page = challenge.secondFactor === 'enrol' ? '/login/two-factor/setup' : '/login/two-factor';
  return target === '/' ? page : `${page}?redirect=${encodeURIComponent(target)}`;
}

/** A 401 on these calls is a wrong code or an expired sign-in, not a lost session. */
const keepSession = { keepSessionOn401: true };

export function useSecondFactorSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { code?: string; recoveryCode?: string; rememberDevice: boolean }) =>
      api.post<Account>('/accounts/login/two-factor', body),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: keepSession,
  });
}

export function useSignInEnrolmentSetup() {
  return useMutation({
    mutationFn: () => api.post<TwoFactorSetup>('/accounts/login/two-factor/setup'),
    meta: keepSession,
  });
}

/** Enrolment done during sign-in: the answer carries the new session's account and the recovery codes. */
export function useConfirmSignInEnrolment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { code: string; rememberDevice: boolean }) =>
      api.post<RecoveryCodes & { account: Account }>('/accounts/login/two-factor/confirm', body),
    onSuccess: (result) => markSignedIn(queryClient, result.account),
    meta: keepSession,
  });
}

export function useTwoFactorStatus() {
  return useQuery({
    queryKey: twoFactorKey,
    queryFn: () => api.get<TwoFactorStatus>('/profile/two-factor'),
  });
}

export function useProfileSetup() {
  return useMutation({ mutationFn: () => api.post<TwoFactorSetup>('/profile/two-factor/setup') });
}

export function useConfirmProfileSetup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api.post<RecoveryCodes>('/profile/two-factor/confirm', { code }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: twoFactorKey });
      // Turning it on ended the other sessions; the sessions list changes.
      void queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
}

export function useDisableTwoFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { code: string } | { password: string }) =>
      api.post<void>('/profile/two-factor/disable', body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: twoFactorKey });
      void queryClient.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
}

export function useNewRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { code: string } | { password: string }) =>
      api.post<RecoveryCodes>('/profile/two-factor/recovery-codes', body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: twoFactorKey }),
  });
}

export function useSetTwoFactorPolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TwoFactorPolicy) => api.put<TwoFactorPolicy>('/accounts/two-factor-policy', body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: twoFactorKey }),
  });
}
