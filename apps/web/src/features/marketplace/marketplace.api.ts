import { RedeemAnswer, RedemptionList, type RedeemBody } from '@herald/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { accountKey, markSignedIn, markSignedOut } from '../account/account.api.ts';

export const redemptionsKey = ['marketplace-redemptions'] as const;

/**
 * POST /v1/marketplace/redeem. Signed out: registers the account with the code and starts the session. Signed in:
 * the code goes onto the current account. Either way the cached account is the one answered.
 */
export function useRedeemCode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RedeemBody) => api.post('/marketplace/redeem', body, { schema: RedeemAnswer }),
    onSuccess: (answer) => {
      if (answer.accountCreated) markSignedIn(queryClient, answer.account);
      else queryClient.setQueryData(accountKey, answer.account);
      void queryClient.invalidateQueries({ queryKey: redemptionsKey });
      // The billing page shows the plan the code gave.
      void queryClient.invalidateQueries({ queryKey: ['billing'] });
    },
    meta: { keepSessionOn401: true },
  });
}

/** GET /v1/marketplace/redemptions: codes already used on the current account (billing:read). */
export function useRedemptions(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: redemptionsKey,
    queryFn: () => api.get('/marketplace/redemptions', { schema: RedemptionList }),
    enabled: options.enabled ?? true,
  });
}

/** POST /v1/accounts/logout, staying on this page: the visitor form then registers a separate account with the code. */
export function useLogOutHere() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<void>('/accounts/logout'),
    onSettled: () => markSignedOut(queryClient, { hasLoggedOut: true }),
  });
}
