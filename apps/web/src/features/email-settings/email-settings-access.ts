import { hasScopes } from '@herald/contracts';
import { useAccount } from '../account/account.api.ts';

/** Email settings change with account:write or emailSettings:write; anyone in the account may see them. */
export function useEmailSettingsAccess() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData
    ? hasScopes(accountData, ['account:write']) || hasScopes(accountData, ['emailSettings:write'])
    : false;
  return { account, canWrite };
}
