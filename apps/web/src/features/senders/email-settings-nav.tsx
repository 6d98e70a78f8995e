import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';

const items = [
  { label: 'Sender addresses', to: '/settings/email/addresses', also: ['/settings/email'] },
  { label: 'Domains', to: '/settings/email/domains', also: [] },
  { label: 'General', to: '/settings/email/general', also: [] },
  { label: 'Fonts', to: '/settings/email/fonts', also: [] },
  { label: 'Suppression list', to: '/settings/email/suppressions', also: [] },
] as const;

function isCurrent(pathname: string, item: (typeof items)[number]): boolean {
  const path = pathname.replace(/\/+$/, '');
  return (
    path === item.to || path.startsWith(`${item.to}/`) || (item.also as readonly string[]).includes(path)
  );
}

/** The links between the /settings/email/* pages; the current one is marked for screen readers too. */
export function EmailSettingsNav() {
  const { pathname } = useLocation();
  return (
    <nav aria-label="Email settings">
      <Group gap={6} wrap="wrap">
        {items.map((item) => {
          const current = isCurrent(pathname, item);
          return (
            <Button
              key={item.to}
              component={Link}
              to={item.to}
              size="compact-sm"
              variant={current ? 'light' : 'subtle'}
              color={current ? 'indigo' : 'gray'}
              aria-current={current ? 'page' : undefined}
            >
              {item.label}
            </Button>
          );
        })}
      </Group>
    </nav>
  );
}
