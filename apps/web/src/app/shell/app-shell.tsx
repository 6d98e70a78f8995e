import { ActionIcon, Avatar, AppShell, Box, Burger, Group, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconHelpCircle, IconSettings, IconStarFilled } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { isUpgradeStarShown, useAccount } from '../../features/account/account.api.ts';
import { UsageBanner } from '../../features/billing/usage-banner.tsx';
import { useSharedFlowLink } from '../../features/flows/share/shared-flow-link.ts';
import { AccountIssuesWarning } from './account-issues.tsx';
import { DeferredHint, DeferredMenu } from './deferred.tsx';
import { GettingStartedProgress } from './getting-started-progress.tsx';
import { mainNavItems, manageNavItems } from './nav-items.ts';
import { profileName } from './profile-name.ts';
import classes from './app-shell.module.css';

/** Only while a shared flow is open; it brings the flows' API and the copy dialog, so it stays out of the entry. */
const SharedFlowBar = lazy(() =>
  import('../../features/flows/share/shared-flow-bar.tsx').then((m) => ({ default: m.SharedFlowBar })),
);

function WideNav() {
  const location = useLocation();
  const isManageActive = manageNavItems.some((item) => location.pathname.startsWith(item.to));
  return (
    <Group gap={2} component="nav" aria-label="Main" wrap="nowrap">
      {mainNavItems.map((item) => (
        <NavLink key={item.to} to={item.to} className={classes.navLink}>
          {item.label}
        </NavLink>
      ))}
      <DeferredMenu
        target={
          <button type="button" className={classes.navLink} data-active={isManageActive || undefined}>
            Manage <IconChevronDown size={14} style={{ verticalAlign: 'middle' }} />
          </button>
        }
        menu={(popups, target, control) => <popups.ManageMenu target={target} {...control} />}
      />
    </Group>
  );
}

function TopBar() {
  const account = useAccount();
  // Below the theme's desktop width the navigation collapses into one menu.
  const isNarrow = useIsNarrow();
  // A shared flow open read-only: the bar offers only to copy it (docs/web-app.md).
  const sharedFlow = useSharedFlowLink();
  if (sharedFlow)
    return (
      <Suspense fallback={null}>
        <SharedFlowBar link={sharedFlow} isLoggedIn />
      </Suspense>
    );
  if (!account.data) return null;
  const isUpgradeShown = isUpgradeStarShown(account.data);
  const accountData = account.data;
  const { initials } = profileName(accountData);

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
      <Group gap="md" wrap="nowrap">
        {isNarrow && (
          <DeferredMenu
            target={<Burger size="sm" aria-label="Open navigation" />}
            menu={(popups, target, control) => <popups.NarrowMenu target={target} {...control} />}
          />
        )}
        <Link to="/dashboard" className={classes.logoLink}>
          <BrandLogo withName={!isNarrow} />
        </Link>
        {!isNarrow && <WideNav />}
      </Group>
      <Group gap={6} wrap="nowrap">
        {!isNarrow && <GettingStartedProgress account={account.data} />}
        {isUpgradeShown && (
          <DeferredHint label="Upgrade your plan">
            <ActionIcon
              component={Link}
              to="/billing"
              variant="subtle"
              color="yellow"
              size="lg"
              aria-label="Upgrade"
            >
              <IconStarFilled size={20} />
            </ActionIcon>
          </DeferredHint>
        )}
        <AccountIssuesWarning />
        <DeferredHint label="Apps and settings">
          <ActionIcon
            component={Link}
            to="/apps"
            variant="subtle"
            color="gray"
            size="lg"
            aria-label="Settings"
          >
            <IconSettings size={22} />
          </ActionIcon>
        </DeferredHint>
        <DeferredMenu
          target={
            <ActionIcon variant="subtle" color="gray" size="lg" aria-label="Help">
              <IconHelpCircle size={22} />
            </ActionIcon>
          }
          menu={(popups, target, control) => <popups.HelpMenu target={target} {...control} />}
        />
        <DeferredMenu
          target={
            // The initials are the button's visible label, so its name starts with them.
            <UnstyledButton aria-label={`${initials}, Profile menu`}>
              <Avatar radius="xl" color="indigo" size={34}>
                {initials}
              </Avatar>
            </UnstyledButton>
          }
          menu={(popups, target, control) => (
            <popups.ProfileMenu account={accountData} target={target} {...control} />
          )}
        />
      </Group>
    </Group>
  );
}

/** The signed-in layout: top bar (hidden on quick-start screens) and the page. */
export function AppShellLayout() {
  const location = useLocation();
  const account = useAccount();
  const isTopBarHidden = location.pathname === '/start' || location.pathname.startsWith('/start/');

  if (isTopBarHidden) {
    return (
      <Box mih="100vh" bg="gray.0">
        <Outlet />
      </Box>
    );
  }
  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <TopBar />
      </AppShell.Header>
      <AppShell.Main bg="gray.0">
        <Box maw={1200} mx="auto">
          {account.data && <UsageBanner account={account.data} />}
          <Outlet />
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
