import { teamMessages, type Account } from '@herald/contracts';
import { Avatar, Group, Menu, Stack, Text, VisuallyHidden } from '@mantine/core';
import type { ReactElement } from 'react';
import {
  IconBuildingStore,
  IconCheck,
  IconCreditCard,
  IconLogout,
  IconUser,
  IconHistory,
  IconUsers,
} from '@tabler/icons-react';
import { Link } from 'react-router';
import { CompanyLogo } from '../../ui/company-logo.tsx';
import type { MenuControl } from './menu-control.ts';
import { profileName } from './profile-name.ts';
import { useLogout } from '../../features/account/account.api.ts';
import { useSwitchAccount } from '../../features/accounts/accounts.api.ts';
import { notifyError } from '../../lib/notify.ts';

/**
 * Account switcher, account links, own profile and log out. `target` is the bar's avatar button (app-shell.tsx),
 * painted before this module loads.
 */
export function ProfileMenu({
  account,
  target,
  opened,
  onChange,
}: {
  account: Account;
  target: ReactElement;
} & MenuControl) {
  const logout = useLogout();
  const switchAccount = useSwitchAccount();
  const member = account.teamMember;
  const { displayName, initials } = profileName(account);

  return (
    <Menu position="bottom-end" width={280} shadow="md" withinPortal opened={opened} onChange={onChange}>
      <Menu.Target>{target}</Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Accounts</Menu.Label>
        {account.allAccounts.map((item) => {
          const isCurrent = item.id === account.accountId;
          const name = item.name || item.site || `Account ${item.id}`;
          return (
            <Menu.Item
              key={item.id}
              // The name shown is the item's name, with "Switch to" or "(current account)" for screen readers.
              leftSection={
                <CompanyLogo companyName={item.name ?? item.site} logo={item.logo} size={24} aria-hidden />
              }
              rightSection={isCurrent ? <IconCheck size={16} aria-hidden /> : null}
              disabled={switchAccount.isPending}
              aria-current={isCurrent ? 'true' : undefined}
              onClick={() => {
                if (isCurrent) return;
                switchAccount.mutate(item.id, {
                  onError: (error) => notifyError(error, teamMessages.couldNotSwitch),
                });
              }}
            >
              <Text size="sm" truncate fw={isCurrent ? 600 : undefined}>
                {!isCurrent && <VisuallyHidden>Switch to </VisuallyHidden>}
                {name}
                {isCurrent && <VisuallyHidden> (current account)</VisuallyHidden>}
              </Text>
            </Menu.Item>
          );
        })}
        <Menu.Divider />
        <Menu.Item component={Link} to="/settings/accounts" leftSection={<IconBuildingStore size={16} />}>
          Manage Accounts
        </Menu.Item>
        <Menu.Item component={Link} to="/account/info" leftSection={<IconUser size={16} />}>
          Your Account
        </Menu.Item>
        <Menu.Item component={Link} to="/settings/team" leftSection={<IconUsers size={16} />}>
          Team Members
        </Menu.Item>
        <Menu.Item component={Link} to="/settings/audit-log" leftSection={<IconHistory size={16} />}>
          Audit Log
        </Menu.Item>
        <Menu.Item component={Link} to="/billing" leftSection={<IconCreditCard size={16} />}>
          Plan and Billing
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item component={Link} to="/profile">
          <Group gap="sm" wrap="nowrap">
            <Avatar radius="xl" color="indigo" size={32}>
              {initials}
            </Avatar>
            <Stack gap={0} style={{ minWidth: 0 }}>
              <Text size="sm" fw={500} truncate>
                {displayName}
              </Text>
              <Text size="xs" c="dimmed" truncate>
                {member.email}
              </Text>
            </Stack>
          </Group>
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={() => logout.mutate()}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
