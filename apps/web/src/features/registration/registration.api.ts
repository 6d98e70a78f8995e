import { Account, type CreateAccountBody } from '@herald/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { accountKey, markSignedIn } from '../account/account.api.ts';

/** POST /v1/accounts/: creates the account and starts the session. */
export function useCreateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateAccountBody) => api.post('/accounts/', body, { schema: Account }),
    onSuccess: (account) => markSignedIn(queryClient, account),
    meta: { keepSessionOn401: true },
  });
}

/** POST /v1/accounts/initial-password: the wizard's last step. */
export function useSetInitialPassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (password: string) =>
      api.post('/accounts/initial-password', { password }, { schema: Account }),
    onSuccess: (account) => queryClient.setQueryData<Account>(accountKey, account),
  });
}
