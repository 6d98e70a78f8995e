import { hasScopes } from '@herald/contracts';
import { useAccount } from '../account/account.api.ts';

/** Sender addresses and domains change with emailSettings:write (the server asks for it); anyone may see them. */
export function useSenderAccess() {
  const account = useAccount();
  const accountData = account.data?.teamMember.accountData;
  const canWrite = accountData ? hasScopes(accountData, ['emailSettings:write']) : false;
  return { account, canWrite };
}
