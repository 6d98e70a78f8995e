import { messages } from '@herald/contracts';
import { notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError, isUnauthorized } from '../lib/api.ts';
import { markSignedOut, sessionKey } from '../features/account/account.api.ts';

function shouldRetry(failureCount: number, error: unknown): boolean {
  // Client errors (4xx) will not change on retry; network and 5xx errors get two more tries.
  if (isApiError(error) && error.statusCode >= 400 && error.statusCode < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (query.queryKey[0] === sessionKey[0]) {
          // Non-401 failure of the session check (docs/web-app.md).
          notifications.show({
            id: 'connection-issues',
            color: 'red',
            message: messages.connectionIssues,
            autoClose: false,
          });
          return;
        }
        // Already signed out (a visitor on a shared flow's read-only page): nothing to clear, the page stays.
        const isSignedOut =
          queryClient.getQueryData<{ isLoggedIn: boolean }>(sessionKey)?.isLoggedIn === false;
        if (isUnauthorized(error) && query.queryKey[0] !== 'config' && !isSignedOut)
          markSignedOut(queryClient);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (isUnauthorized(error) && !mutation.meta?.keepSessionOn401) markSignedOut(queryClient);
      },
    }),
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
  return queryClient;
}
