import {
  AcceptInvitationBody,
  InvitationInfo,
  InviteTeamMemberBody,
  SignInResponse,
  TeamMemberList,
  TeamMemberResponse,
  UpdateTeamMemberBody,
} from '@herald/contracts';
import { z } from 'zod';
import { route } from '../../http/route.ts';
import {
  acceptInvitation,
  invitationInfo,
  inviteMember,
  listTeam,
  removeTeamMember,
  signOutTeamMember,
  updateTeamMember,
} from './team.service.ts';

const MemberParams = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53),
});

/** Team members and invitations (docs/team-and-accounts.md). */
export const teamRoutes = [
  route({
    method: 'GET',
    url: '/v1/team-members',
    auth: 'session',
    scopes: ['team:read'],
    summary: 'Team members of the account',
    response: TeamMemberList,
    handler: ({ db, session }) => listTeam(db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/team-members',
    auth: 'session',
    scopes: ['team:write'],
    example: { name: 'Probe', email: 'probe-invitee@example.com' },
    summary: 'Invite a team member',
    body: InviteTeamMemberBody,
    response: TeamMemberResponse,
    status: 201,
    handler: ({ services, db, session, body }) => inviteMember(services, db, session, body),
  }),
  route({
    method: 'PATCH',
    url: '/v1/team-members/:id',
    auth: 'session',
    scopes: ['team:write'],
    example: { name: 'Probe' },
    summary: "Change a team member's name or scopes",
    params: MemberParams,
    body: UpdateTeamMemberBody,
    response: TeamMemberResponse,
    // Scope changes show as before → after of the member's scopes.
    audit: {
      before: async ({ db, session, params }) =>
        (await listTeam(db, session)).teamMembers.find((m) => m.id === params.id),
    },
    handler: ({ db, session, params, body }) => updateTeamMember(db, session, params.id, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/team-members/:id',
    auth: 'session',
    scopes: ['team:write'],
    summary: 'Remove a team member',
    params: MemberParams,
    handler: ({ db, session, params }) => removeTeamMember(db, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/team-members/:id/sign-out',
    auth: 'session',
    scopes: ['team:write'],
    summary: "End a team member's sessions in this account",
    params: MemberParams,
    handler: ({ db, session, params }) => signOutTeamMember(db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/team-members/invitations/:token',
    auth: 'public',
    summary: 'What an invitation link offers',
    params: z.object({ token: z.string().min(1).max(2000) }),
    response: InvitationInfo,
    handler: ({ services, params }) => invitationInfo(services, params.token),
  }),
  route({
    method: 'POST',
    url: '/v1/team-members/invitations/accept',
    auth: 'public',
    example: { token: 'x.y', password: 'a long password' },
    summary: 'Accept an invitation and sign in',
    body: AcceptInvitationBody,
    response: SignInResponse,
    handler: ({ services, body, request, reply }) => acceptInvitation(services, body, request, reply),
  }),
];
