import { Menu } from '@mantine/core';
import type { ReactElement } from 'react';
import { Link } from 'react-router';
import type { MenuControl } from './menu-control.ts';
import { mainNavItems, manageNavItems } from './nav-items.ts';

interface DeferredMenuProps extends MenuControl {
  /** The trigger the bar painted before this module loaded (app-shell.tsx). */
  target: ReactElement;
}

/** The wide bar's Manage menu. */
export function ManageMenu({ target, opened, onChange }: DeferredMenuProps) {
  return (
    <Menu position="bottom-start" shadow="md" withinPortal opened={opened} onChange={onChange}>
      <Menu.Target>{target}</Menu.Target>
      <Menu.Dropdown>
        {manageNavItems.map((item) => (
          <Menu.Item key={item.to} component={Link} to={item.to}>
            {item.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** Below the desktop width, the whole navigation in one menu. */
export function NarrowMenu({ target, opened, onChange }: DeferredMenuProps) {
  return (
    <Menu position="bottom-start" shadow="md" width={220} withinPortal opened={opened} onChange={onChange}>
      <Menu.Target>{target}</Menu.Target>
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
