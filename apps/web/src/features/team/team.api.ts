import {
  InvitationInfo,
  SignInResponse,
  TeamMemberList,
  TeamMemberResponse,
  type Account,
  type ScopeState,
  type TeamMemberView,
} from '@herald/contracts';
import { useIsMutating, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import { accountKey, replaceSession } from '../account/account.api.ts';
import { isSecondFactorChallenge } from '../two-factor/two-factor.api.ts';

export const teamKey = ['team-members'] as const;
/** Every team change shares this key: they run one at a time (docs/team-and-accounts.md). */
export const teamMutationKey = ['team-change'] as const;

type TeamList = { teamMembers: TeamMemberView[] };

export function useTeamMembers(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: teamKey,
    queryFn: () => api.get('/team-members', { schema: TeamMemberList }),
    enabled: options.enabled ?? true,
  });
}

/** True while any team change is in flight; the page disables its actions meanwhile. */
export function useIsTeamChanging(): boolean {
  return useIsMutating({ mutationKey: teamMutationKey }) > 0;
}

export interface InviteInput {
  name: string;
  email: string;
  scopes: ScopeState[];
}

export function useInviteTeamMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: teamMutationKey,
    mutationFn: (body: InviteInput) => api.post('/team-members', body, { schema: TeamMemberResponse }),
    onSuccess: ({ teamMember }) => {
      queryClient.setQueryData<TeamList>(teamKey, (list) =>
        list
          ? { teamMembers: [...list.teamMembers.filter((m) => m.id !== teamMember.id), teamMember] }
          : list,
      );
      void queryClient.invalidateQueries({ queryKey: teamKey });
    },
  });
}

export interface UpdateInput {
  id: number;
  name?: string;
  scopes?: ScopeState[];
}

export function useUpdateTeamMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: teamMutationKey,
    mutationFn: ({ id, ...body }: UpdateInput) =>
      api.patch(`/team-members/${id}`, body, { schema: TeamMemberResponse }),
    onSuccess: ({ teamMember }) => {
      queryClient.setQueryData<TeamList>(teamKey, (list) =>
        list ? { teamMembers: list.teamMembers.map((m) => (m.id === teamMember.id ? teamMember : m)) } : list,
      );
      // The signed-in member may have changed their own name or scopes.
      queryClient.setQueryData<Account>(accountKey, (account) =>
        account && account.teamMemberId === teamMember.id
          ? { ...account, teamMember: { ...account.teamMember, name: teamMember.name } }
          : account,
      );
      void queryClient.invalidateQueries({ queryKey: accountKey });
    },
  });
}

/** Optimistic removal, put back when the server refuses. */
export function useRemoveTeamMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: teamMutationKey,
    mutationFn: (id: number) => api.delete<void>(`/team-members/${id}`),
    onMutate: async (id) => {
      await queryClient.cancelQueries({ queryKey: teamKey });
      const previous = queryClient.getQueryData<TeamList>(teamKey);
      queryClient.setQueryData<TeamList>(teamKey, (list) =>
        list ? { teamMembers: list.teamMembers.filter((m) => m.id !== id) } : list,
      );
      return { previous };
    },
    onError: (_error, _id, context) => {
      if (context?.previous) queryClient.setQueryData<TeamList>(teamKey, context.previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: teamKey }),
  });
}

export function useInvitationInfo(token: string) {
  return useQuery({
    queryKey: ['invitation', token],
    queryFn: () =>
      api.get(`/team-members/invitations/${encodeURIComponent(token)}`, { schema: InvitationInfo }),
    enabled: token.length > 0,
    retry: false,
    staleTime: Infinity,
  });
}

export function useAcceptInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password?: string; idToken?: string }) =>
      api.post('/team-members/invitations/accept', body, { schema: SignInResponse }),
    onSuccess: (result) => {
      // A new session, possibly for another account: nothing cached before still applies. With two-factor on (or
      // required), the second step comes first.
      if (!isSecondFactorChallenge(result)) replaceSession(queryClient, result);
    },
    // A 401 here is a wrong password, not a lost session.
    meta: { keepSessionOn401: true },
  });
}

/** POST /v1/team-members/{id}/sign-out: the member's sessions in this account end. */
export function useSignOutMember() {
  return useMutation({ mutationFn: (id: number) => api.post<void>(`/team-members/${id}/sign-out`) });
}
