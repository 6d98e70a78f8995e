import { Badge, Menu } from '@mantine/core';
import type { ReactElement } from 'react';
import {
  IconBook,
  IconBug,
  IconBulb,
  IconCode,
  IconLifebuoy,
  IconNews,
  IconRocket,
} from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { MenuControl } from './menu-control.ts';
import { api } from '../../lib/api.ts';
import { useConfig } from '../../lib/config.api.ts';

function StatusBadge() {
  const heartbeat = useQuery({
    queryKey: ['heartbeat'],
    queryFn: () => api.get<{ ok: true }>('/heartbeat'),
    staleTime: 60_000,
    retry: false,
  });
  if (heartbeat.isPending)
    return (
      <Badge color="gray" variant="light">
        Checking status
      </Badge>
    );
  if (heartbeat.isError)
    return (
      <Badge color="red" variant="light">
        Service unreachable
      </Badge>
    );
  return (
    <Badge color="teal" variant="light">
      All systems operational
    </Badge>
  );
}

/**
 * Get Help and the other links; items on the support site are hidden when none is configured. `target` is the bar's
 * Help button (app-shell.tsx), painted before this module loads.
 */
export function HelpMenu({ target, opened, onChange }: { target: ReactElement } & MenuControl) {
  const { supportUrl } = useConfig();
  const external = (label: string, icon: React.ReactNode) =>
    supportUrl ? (
      <Menu.Item component="a" href={supportUrl} target="_blank" rel="noreferrer" leftSection={icon}>
        {label}
      </Menu.Item>
    ) : null;

  return (
    <Menu position="bottom-end" width={240} shadow="md" withinPortal opened={opened} onChange={onChange}>
      <Menu.Target>{target}</Menu.Target>
      <Menu.Dropdown>
        {external('Get Help', <IconLifebuoy size={16} />)}
        <Menu.Item component={Link} to="/start" leftSection={<IconRocket size={16} />}>
          Quick Start
        </Menu.Item>
        {external('Knowledge Base', <IconBook size={16} />)}
        <Menu.Item
          component="a"
          href="/v1/openapi.json"
          target="_blank"
          rel="noreferrer"
          leftSection={<IconCode size={16} />}
        >
          Developer Docs
        </Menu.Item>
        {external('Product Updates', <IconNews size={16} />)}
        {external('Request a Feature', <IconBulb size={16} />)}
        {external('Report a Bug', <IconBug size={16} />)}
        <Menu.Divider />
        <Menu.Label>Status</Menu.Label>
        <Menu.Item component="div" closeMenuOnClick={false} style={{ cursor: 'default' }}>
          <StatusBadge />
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
