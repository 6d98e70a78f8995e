/** Top-bar navigation (docs/web-app.md). */
export const mainNavItems = [
  { label: 'Dashboard', to: '/dashboard' },
  { label: 'Flows', to: '/flows' },
  { label: 'People', to: '/people' },
  { label: 'Broadcasts', to: '/broadcasts' },
  { label: 'Emails', to: '/emails' },
  { label: 'Metrics', to: '/metrics' },
] as const;

export const manageNavItems = [
  { label: 'Tags', to: '/settings/tags' },
  { label: 'Custom Fields', to: '/settings/person-fields' },
] as const;
