import { z } from 'zod';
import { EmailAddress, Site, TeamMember, TimeZone } from './accounts.ts';
import { scopeDefaults, scopeIds, scopeNeeds, type ScopeId, type ScopeState } from './scopes.ts';

export const ScopeInput = z.object({ id: z.enum(scopeIds), enabled: z.boolean() });

/** A team member as the team page lists it: TeamMember plus whether the invitation is still open. */
export const TeamMemberView = TeamMember.extend({ invitationPending: z.boolean(), createdAt: z.string() });
export type TeamMemberView = z.infer<typeof TeamMemberView>;

export const TeamMemberList = z.object({ teamMembers: z.array(TeamMemberView) });
export const InviteTeamMemberBody = z.strictObject({
  name: z.string().trim().min(1, 'Name is required.').max(200),
  email: EmailAddress,
  scopes: z
    .array(ScopeInput)
    .max(scopeIds.length * 2)
    .optional(),
});
export const UpdateTeamMemberBody = z.strictObject({
  name: z.string().trim().max(200).optional(),
  scopes: z
    .array(ScopeInput)
    .max(scopeIds.length * 2)
    .optional(),
});
export const TeamMemberResponse = z.object({ teamMember: TeamMemberView });

export const InvitationInfo = z.object({
  accountName: z.string().nullable(),
  email: z.string(),
  inviterName: z.string().nullable(),
  /** The invitee has no login yet and must choose a password (or use Google). */
  needsPassword: z.boolean(),
});
export const AcceptInvitationBody = z.strictObject({
  token: z.string().min(1).max(2000),
  password: z.string().min(8, 'Password must be at least 8 characters.').max(200).optional(),
  idToken: z.string().min(1).max(8192).optional(),
});

export const AccountListItem = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  site: z.string().nullable(),
  logo: z.string().nullable(),
  isOwner: z.boolean(),
  parentAccountId: z.number().int().nullable(),
  isCurrent: z.boolean(),
});
export const AccountList = z.object({ accounts: z.array(AccountListItem) });
export const CreateSubaccountBody = z.strictObject({
  name: z.string().trim().min(1, 'Name is required.').max(200),
  site: z.union([z.literal(''), Site]).optional(),
  industry: z.string().trim().max(100).optional(),
  timezone: TimeZone.optional(),
});
export const SubaccountResponse = z.object({ subaccount: AccountListItem });
export const DeleteAccountResponse = z.object({
  result: z.enum(['deleted', 'in-progress']),
  message: z.string(),
});
export { IdParams as AccountIdParams } from './common.ts';

export const logoContentTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const maxLogoBytes = 1024 * 1024;
export const LogoUploadBody = z.strictObject({
  contentType: z.enum(logoContentTypes, 'The logo must be a PNG, JPEG, GIF or WebP image.'),
});
export const UploadUrlResponse = z.object({ url: z.string(), key: z.string(), publicUrl: z.string() });

export const ApiKeyResponse = z.object({ apiKey: z.string(), hint: z.string() });

export const AccountIssue = z.object({
  id: z.number().int(),
  kind: z.string(),
  message: z.string(),
  createdAt: z.string(),
});
export type AccountIssue = z.infer<typeof AccountIssue>;
export const AccountIssues = z.object({ issues: z.array(AccountIssue) });

/** Every scope id once, with defaults for the ones not given. */
export function completeScopes(given: readonly ScopeState[] = []): ScopeState[] {
  const byId = new Map(given.map((s) => [s.id, s.enabled]));
  return scopeIds.map((id) => ({ id, enabled: byId.get(id) ?? scopeDefaults[id] }));
}

/**
 * The server's rule for a submitted list: a scope stays enabled only when everything it needs is
 * enabled too (least privilege), repeated until nothing changes.
 */
export function enforceScopeNeeds(scopes: readonly ScopeState[]): ScopeState[] {
  const enabled = new Set(scopes.filter((s) => s.enabled).map((s) => s.id));
  let changed = true;
  while (changed) {
    changed = false;
    for (const id of [...enabled]) {
      if ((scopeNeeds[id] ?? []).some((need) => !enabled.has(need))) {
        enabled.delete(id);
        changed = true;
      }
    }
  }
  return scopes.map((s) => ({ id: s.id, enabled: enabled.has(s.id) }));
}

/** The UI's rule for one toggle: enabling enables what it needs; disabling disables what depends on it. */
export function toggleScope(scopes: readonly ScopeState[], id: ScopeId, enable: boolean): ScopeState[] {
  const enabled = new Set(scopes.filter((s) => s.enabled).map((s) => s.id));
  const visit = (scope: ScopeId) => {
    if (enable) {
      enabled.add(scope);
      for (const need of scopeNeeds[scope] ?? []) if (!enabled.has(need)) visit(need);
    } else {
      enabled.delete(scope);
      for (const [dependent, needs] of Object.entries(scopeNeeds) as [ScopeId, ScopeId[]][]) {
        if (needs.includes(scope) && enabled.has(dependent)) visit(dependent);
      }
    }
  };
  visit(id);
  return scopes.map((s) => ({ id: s.id, enabled: enabled.has(s.id) }));
}

/** The scope groups of the team-member popup (docs/team-and-accounts.md). */
export const scopeGroups: { name: string; scopes: ScopeId[] }[] = [
  {
    name: 'Account',
    scopes: [
      'account:write',
      'apps:write',
      'team:read',
      'team:write',
      'apiKeys:read',
      'apiKeys:write',
      'subaccounts:write',
    ],
  },
  { name: 'Billing', scopes: ['billing:read', 'billing:write'] },
  {
    name: 'Emails',
    scopes: [
      'emails:read',
      'emails:write',
      'broadcasts:read',
      'broadcasts:write',
      'emailMetrics:read',
      'emailSettings:write',
    ],
  },
  { name: 'Flows', scopes: ['flows:read', 'flows:write'] },
  { name: 'People', scopes: ['people:read', 'people:write', 'people:export', 'personFields:write'] },
];
