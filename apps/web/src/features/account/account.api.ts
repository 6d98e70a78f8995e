import {
  teamMessages,
  nextRegistrationStep,
  type Account,
  type AccountIssues,
  type ApiKeyResponse,
  type HeartbeatResponse,
  type RegistrationStep,
  type UpdateAccountBody,
  type UploadUrlResponse,
} from '@herald/contracts';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { api, errorMessage, isUnauthorized } from '../../lib/api.ts';

export const sessionKey = ['session'] as const;
export const accountKey = ['account'] as const;

/** hasLoggedOut: the user asked to leave, so guarded pages go to /login without keeping the origin. */
export type Session = { isLoggedIn: true; accountId: number } | { isLoggedIn: false; hasLoggedOut?: boolean };

/** Session check: GET /v1/heartbeat/authenticated; a 401 means logged out, other failures are errors. */
async function fetchSession(): Promise<Session> {
  try {
    const beat = await api.get<z.infer<typeof HeartbeatResponse>>('/heartbeat/authenticated');
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
    queryFn: () => api.get<Account>('/accounts'),
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

/**
 * After switching account or joining one: the new session's account, and every other cached query
 * reset (active ones refetch) because it belonged to the previous account.
 */
export function replaceSession(queryClient: QueryClient, account: Account): void {
  markSignedIn(queryClient, account);
  void queryClient.resetQueries({
    predicate: (query) => !['config', sessionKey[0], accountKey[0]].includes(String(query.queryKey[0])),
  });
}

/** Forgets everything about the session (after logout or any 401). */
export function markSignedOut(queryClient: QueryClient, options: { hasLoggedOut?: boolean } = {}): void {
  queryClient.removeQueries({
    predicate: (query) => query.queryKey[0] !== 'config' && query.queryKey[0] !== 'session',
  });
  const session: Session = { isLoggedIn: false, hasLoggedOut: options.hasLoggedOut ?? false };
  queryClient.setQueryData<Session>(sessionKey, session);
}

export function useUpdateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateAccountBody) => api.patch<Account>('/accounts/me', body),
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

/**
 * Where the registration wizard stands for this account (null when complete). The wizard is the
 * sign-up of a main account by its owner: sub-accounts (created from another account, with no phone
 * or goals of their own) and invited team members never go through it.
 */
export function registrationStepOf(account: Account): RegistrationStep | null {
  if (account.accountId !== account.mainAccountId || !account.teamMember.accountData.isOwner) return null;
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
  const plan = account.payment?.plan;
  return Boolean(plan && typeof plan.price === 'number' && plan.price > 0);
}

/** docs/team-and-accounts.md: the star shows only when the plan price is missing or 0, and never when billing is off (payment null). */
export function isUpgradeStarShown(account: Account): boolean {
  return account.payment !== null && !hasPaidPlan(account);
}

export const accountIssuesKey = ['account-issues'] as const;

/** GET /v1/accounts/issues: open problems that pause sending. */
export function useAccountIssues(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: accountIssuesKey,
    queryFn: () => api.get<z.infer<typeof AccountIssues>>('/accounts/issues'),
    enabled: options.enabled ?? true,
    staleTime: 5 * 60_000,
  });
}

/** POST /v1/accounts/rotate-api-key: the new key is in the response only, never cached. */
export function useRotateApiKey() {
  return useMutation({
    mutationFn: () => api.post<z.infer<typeof ApiKeyResponse>>('/accounts/rotate-api-key'),
  });
}

/** A logo-upload failure whose message is ready to show. */
export class LogoUploadError extends Error {}

async function putFile(url: string, file: File): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'PUT', body: file, headers: { 'content-type': file.type } });
  } catch {
    throw new LogoUploadError(`Couldn't save your logo: the upload did not reach the server.`);
  }
  if (response.status < 300) return;
  let reason = `${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string' && body.message) reason = body.message;
  } catch {
    // Not JSON: the status line is the reason.
  }
  throw new LogoUploadError(`Couldn't save your logo: ${reason}`);
}

/** Upload URL from the server, PUT of the file there, then PATCH /accounts/me {logo}. */
export function useUploadLogo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      let target: z.infer<typeof UploadUrlResponse> | undefined;
      try {
        target = await api.post<z.infer<typeof UploadUrlResponse>>('/accounts/logo', {
          contentType: file.type,
        });
      } catch (error) {
        throw new LogoUploadError(errorMessage(error, teamMessages.logoUploadUrlFailed));
      }
      if (!target?.url || !target.publicUrl) throw new LogoUploadError(teamMessages.logoUploadUrlFailed);
      await putFile(target.url, file);
      try {
        return await api.patch<Account>('/accounts/me', { logo: target.publicUrl });
      } catch (error) {
        throw new LogoUploadError(
          `Couldn't save your logo: ${errorMessage(error, teamMessages.couldNotSaveLogo)}`,
        );
      }
    },
    onSuccess: (account) => queryClient.setQueryData<Account>(accountKey, account),
  });
}
