import { hasScopes, type ScopeId } from '@herald/contracts';
import { useAccount } from './account.api.ts';

/**
 * What the signed-in team member may do on a page: see it (`read`) and change it (`write`), both false
 * until the account has loaded (`isReady`). Every list and detail page asks this way.
 */
export function useAccess(read: readonly ScopeId[], write: readonly ScopeId[]) {
  const account = useAccount();
  const member = account.data?.teamMember.accountData;
  return {
    account,
    isReady: account.data !== undefined,
    canRead: member ? hasScopes(member, read) : false,
    canWrite: member ? hasScopes(member, write) : false,
  };
}
