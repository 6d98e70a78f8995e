import { messages, type Account, type UpdateAccountBody } from '@herald/contracts';
import { useState } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { useUpdateAccount } from '../account/account.api.ts';

/** Saves one step's fields with PATCH /v1/accounts/me, then advances. */
export function useStepSave(onDone: (account: Account) => void) {
  const update = useUpdateAccount();
  const [error, setError] = useState<string | null>(null);
  return {
    error,
    isPending: update.isPending,
    submit: (body: UpdateAccountBody) => {
      setError(null);
      update.mutate(body, {
        onSuccess: onDone,
        onError: (failure) => setError(errorMessage(failure, messages.couldNotSaveAccount)),
      });
    },
  };
}
