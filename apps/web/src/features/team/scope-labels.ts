import type { ScopeId } from '@herald/contracts';

/** What each permission lets a team member do, as the team-member popup names it. */
export const scopeLabels: Record<ScopeId, string> = {
  'account:write': 'Edit account settings',
  'apps:write': 'Connect and configure apps',
  'team:read': 'See team members',
  'team:write': 'Invite and manage team members',
  'apiKeys:read': 'See API keys',
  'apiKeys:write': 'Rotate API keys',
  'subaccounts:write': 'Create sub-accounts',
  'billing:read': 'See plan and billing',
  'billing:write': 'Change plan and billing',
  'emails:read': 'See emails',
  'emails:write': 'Edit emails',
  'broadcasts:read': 'See broadcasts',
  'broadcasts:write': 'Create and send broadcasts',
  'emailMetrics:read': 'See email metrics',
  'emailSettings:write': 'Change email settings',
  'flows:read': 'See flows',
  'flows:write': 'Create and edit flows',
  'people:read': 'See people',
  'people:write': 'Add and edit people',
  'people:export': 'Export people',
  'personFields:write': 'Manage custom fields',
};
