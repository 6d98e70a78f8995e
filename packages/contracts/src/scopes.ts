/** The 21 team-member scope ids (docs/team-and-accounts.md) with their defaults and dependencies. */
export const scopeIds = [
  'emails:read',
  'emails:write',
  'people:read',
  'people:write',
  'people:export',
  'flows:read',
  'flows:write',
  'broadcasts:read',
  'broadcasts:write',
  'emailMetrics:read',
  'team:read',
  'team:write',
  'emailSettings:write',
  'apps:write',
  'personFields:write',
  'account:write',
  'apiKeys:read',
  'apiKeys:write',
  'billing:read',
  'billing:write',
  'subaccounts:write',
] as const;
export type ScopeId = (typeof scopeIds)[number];

/** Default of each scope for a new team member. The spec leaves four unstated; they default to off. */
export const scopeDefaults: Record<ScopeId, boolean> = {
  'account:write': false,
  'apps:write': true,
  'team:read': true,
  'team:write': false,
  'billing:read': false,
  'billing:write': false,
  'emails:read': true,
  'emails:write': true,
  'broadcasts:read': true,
  'broadcasts:write': true,
  'emailMetrics:read': true,
  'emailSettings:write': true,
  'flows:read': true,
  'flows:write': true,
  'people:read': true,
  'people:write': true,
  'people:export': true,
  'personFields:write': true,
  'apiKeys:read': false,
  'apiKeys:write': false,
  'subaccounts:write': false,
};

/** What each scope needs enabled as well. */
export const scopeNeeds: Partial<Record<ScopeId, ScopeId[]>> = {
  'billing:write': ['billing:read'],
  'emails:write': ['emails:read'],
  'broadcasts:read': ['emails:read'],
  'broadcasts:write': ['broadcasts:read', 'emails:read'],
  'flows:read': ['emails:read'],
  'flows:write': ['flows:read', 'emails:read'],
  'people:write': ['people:read'],
  'people:export': ['people:read'],
};

export interface ScopeState {
  id: ScopeId;
  enabled: boolean;
}

/** A check passes when nothing is required, the member is owner, or every needed scope is enabled. */
export function hasScopes(
  member: { isOwner: boolean; scopes: readonly ScopeState[] },
  required: readonly ScopeId[],
): boolean {
  if (required.length === 0 || member.isOwner) return true;
  const enabled = new Set(member.scopes.filter((s) => s.enabled).map((s) => s.id));
  return required.every((id) => enabled.has(id));
}

/** Every scope enabled: what an owner holds. */
export function allScopes(): ScopeState[] {
  return scopeIds.map((id) => ({ id, enabled: true }));
}
