import { ActionIcon, AppShell, Box, Burger, Group, Menu, Tooltip } from '@mantine/core';
import { IconChevronDown, IconSettings, IconStarFilled } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { useIsNarrow } from '../../lib/use-is-narrow.ts';
import { BrandLogo } from '../../ui/brand-logo.tsx';
import { isUpgradeStarShown, useAccount } from '../../features/account/account.api.ts';
import { UsageBanner } from '../../features/billing/usage-banner.tsx';
import { useSharedFlowLink } from '../../features/flows/share/shared-flow-link.ts';
import { AccountIssuesWarning } from './account-issues.tsx';
import { GettingStartedProgress } from './getting-started-progress.tsx';
import { HelpMenu } from './help-menu.tsx';
import { mainNavItems, manageNavItems } from './nav-items.ts';
import { ProfileMenu } from './profile-menu.tsx';
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
      <Menu position="bottom-start" shadow="md" withinPortal>
        <Menu.Target>
          <button type="button" className={classes.navLink} data-active={isManageActive || undefined}>
            Manage <IconChevronDown size={14} style={{ verticalAlign: 'middle' }} />
          </button>
        </Menu.Target>
        <Menu.Dropdown>
          {manageNavItems.map((item) => (
            <Menu.Item key={item.to} component={Link} to={item.to}>
              {item.label}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}

function NarrowNav() {
  return (
    <Menu position="bottom-start" shadow="md" width={220} withinPortal>
      <Menu.Target>
        <Burger size="sm" aria-label="Open navigation" />
      </Menu.Target>
      <Menu.Dropdown>
        {mainNavItems.map((item) => (
          <Menu.Item key={item.to} component={Link} to={item.to}>
            {item.label}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Label>Manage</Menu.Label>
        {manageNavItems.map((item) => (
          <Menu.Item key={item.to} component={Link} to={item.to}>
            {item.label}
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item component={Link} to="/start">
          Quick Start
        </Menu.Item>
        <Menu.Item component={Link} to="/apps">
          Apps
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
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

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
      <Group gap="md" wrap="nowrap">
        {isNarrow && <NarrowNav />}
        <Link to="/dashboard" className={classes.logoLink}>
          <BrandLogo withName={!isNarrow} />
        </Link>
        {!isNarrow && <WideNav />}
      </Group>
      <Group gap={6} wrap="nowrap">
        {!isNarrow && <GettingStartedProgress account={account.data} />}
        {isUpgradeShown && (
          <Tooltip label="Upgrade your plan" withArrow>
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
          </Tooltip>
        )}
        <AccountIssuesWarning />
        <Tooltip label="Apps and settings" withArrow>
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
        </Tooltip>
        <HelpMenu />
        <ProfileMenu account={account.data} />
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
