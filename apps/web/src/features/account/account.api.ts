import {
  Account,
  HeartbeatResponse,
  nextRegistrationStep,
  type RegistrationStep,
  type UpdateAccountBody,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, isUnauthorized } from '../../lib/api.ts';

export const sessionKey = ['session'] as const;
export const accountKey = ['account'] as const;

/** hasLoggedOut: the user asked to leave, so guarded pages go to /login without keeping the origin. */
export type Session = { isLoggedIn: true; accountId: number } | { isLoggedIn: false; hasLoggedOut?: boolean };

/** Session check: GET /v1/heartbeat/authenticated; a 401 means logged out, other failures are errors. */
async function fetchSession(): Promise<Session> {
  try {
    const beat = await api.get('/heartbeat/authenticated', { schema: HeartbeatResponse });
    const session: Session = { isLoggedIn: true, accountId: beat.accountId };
    return session;
  } catch (error) {
    if (isUnauthorized(error)) return { isLoggedIn: false };
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: fetchSession, staleTime: 5 * 60_000 });
}

export function useAccount(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: accountKey,
    queryFn: () => api.get('/accounts', { schema: Account }),
    enabled: options.enabled ?? true,
    staleTime: 60_000,
  });
}

/** Records a fresh session after login, registration or a password reset. */
export function markSignedIn(queryClient: QueryClient, account: Account): void {
  const session: Session = { isLoggedIn: true, accountId: account.accountId };
  queryClient.setQueryData<Session>(sessionKey, session);
  queryClient.setQueryData<Account>(accountKey, account);
}

/** Forgets everything about the session (after logout or any 401). */
export function markSignedOut(queryClient: QueryClient, options: { hasLoggedOut?: boolean } = {}): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'config' && query.queryKey[0] !== 'session' });
  const session: Session = { isLoggedIn: false, hasLoggedOut: options.hasLoggedOut ?? false };
  queryClient.setQueryData<Session>(sessionKey, session);
}

export function useUpdateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateAccountBody) => api.patch('/accounts/me', body, { schema: Account }),
    onSuccess: (account) => queryClient.setQueryData<Account>(accountKey, account),
  });
}

/** POST /v1/accounts/logout, then /login. */
export function useLogout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => api.post<void>('/accounts/logout'),
    // Even if the call fails the user asked to leave; the guard sends them to a plain /login.
    onSettled: () => {
      markSignedOut(queryClient, { hasLoggedOut: true });
      void navigate('/login', { replace: true });
    },
  });
}

/** Where the registration wizard stands for this account (null when complete). */
export function registrationStepOf(account: Account): RegistrationStep | null {
  return nextRegistrationStep({
    email: account.email,
    name: account.name,
    phone: account.phone,
    site: account.site,
    flags: account.flags,
    createdWithGoogleSignin: account.teamMember.data.createdWithGoogleSignin,
  });
}

/** The upgrade star shows when there is no paid plan (plan missing or priced 0). */
export function hasPaidPlan(account: Account): boolean {
  const plan = (account.payment as { plan?: { price?: number } | null } | null)?.plan;
  return Boolean(plan && typeof plan.price === 'number' && plan.price > 0);
}
