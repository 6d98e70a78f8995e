import {
  teamMessages,
  type Account,
  type AccountList,
  type AccountListItem,
  type DeleteAccountResponse,
  type SubaccountResponse,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { useNavigate } from 'react-router';
import { api } from '../../lib/api.ts';
import { accountKey, replaceSession } from '../account/account.api.ts';
import { browserTimeZone } from '../../lib/format.ts';

export const myAccountsKey = ['my-accounts'] as const;
type AccountListData = { accounts: z.infer<typeof AccountListItem>[] };

export function useMyAccounts() {
  return useQuery({
    queryKey: myAccountsKey,
    queryFn: () => api.get<z.infer<typeof AccountList>>('/team-members/accounts'),
  });
}

export interface NewAccountInput {
  name: string;
  site?: string;
  industry?: string;
}

/** POST /v1/team-members/accounts, in the browser's time zone (UTC when it has none). */
export function useCreateSubaccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewAccountInput) =>
      api.post<z.infer<typeof SubaccountResponse>>('/team-members/accounts', {
        ...input,
        timezone: browserTimeZone(),
      }),
    onSuccess: ({ subaccount }) => {
      queryClient.setQueryData<AccountListData>(myAccountsKey, (list) =>
        list ? { accounts: [...list.accounts.filter((a) => a.id !== subaccount.id), subaccount] } : list,
      );
      void queryClient.invalidateQueries({ queryKey: myAccountsKey });
      // allAccounts in the profile menu.
      void queryClient.invalidateQueries({ queryKey: accountKey });
    },
  });
}

export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number | null | undefined) => {
      if (!id) return Promise.reject(new Error(teamMessages.noAccountToDelete));
      return api.delete<z.infer<typeof DeleteAccountResponse>>(`/accounts/${id}`);
    },
    onSuccess: (result, id) => {
      if (result.result === 'deleted') {
        queryClient.setQueryData<AccountListData>(myAccountsKey, (list) =>
          list ? { accounts: list.accounts.filter((a) => a.id !== id) } : list,
        );
      }
      void queryClient.invalidateQueries({ queryKey: myAccountsKey });
      void queryClient.invalidateQueries({ queryKey: accountKey });
    },
  });
}

/** POST /v1/accounts/{id}/switch; then everything cached belonged to the old account: go to / and refetch. */
export function useSwitchAccount() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: (id: number | null | undefined) => {
      if (!id) return Promise.reject(new Error(teamMessages.noAccountToSwitchTo));
      return api.post<Account>(`/accounts/${id}/switch`);
    },
    onSuccess: (account) => {
      // A new session, possibly for another account: nothing cached before still applies.
      replaceSession(queryClient, account);
      void navigate('/', { replace: false });
    },
  });
}
