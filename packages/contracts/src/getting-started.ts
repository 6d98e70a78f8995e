import type { Account } from './accounts.ts';
import type { GettingStarted } from './dashboard.ts';

// The getting-started rule lives apart from the dashboard's schemas: the top bar runs it on every page, and this module
// brings no zod into the web app's first page (docs/web-app.md, "A lighter web app").

/**
 * The four-step getting-started rule (docs/web-app.md): 20% with next 'Import People' while nothing was imported and
 * the account holds one person or none; then 40% 'Connect Apps', 60% 'Create Flow', 80% 'Get Help' until each is
 * done; 100% (nothing next) when all are. The import step counts as done once the account holds more than one
 * person, however they came.
 */
export function gettingStartedOf(account: Pick<Account, 'onboarding' | 'peopleCount'>): GettingStarted {
  const { onboarding, peopleCount } = account;
  const done = {
    import: onboarding.import === true || peopleCount > 1,
    apps: onboarding.apps === true,
    flow: onboarding.flow === true,
    help: onboarding.help === true,
  };
  if (!done.import) return { percent: 20, next: { label: 'Import People', to: '/start/import' }, done };
  if (!done.apps) return { percent: 40, next: { label: 'Connect Apps', to: '/start/apps' }, done };
  if (!done.flow) return { percent: 60, next: { label: 'Create Flow', to: '/start/flow' }, done };
  if (!done.help) return { percent: 80, next: { label: 'Get Help', to: '/start/help' }, done };
  return { percent: 100, next: null, done };
}
