import { Tooltip } from '@mantine/core';
import type { ReactElement } from 'react';

/**
 * The top bar's popups, one chunk loaded right after the shell's first render (shell-popups-loader.ts): its menus,
 * tooltips and the account-issues dialog bring Floating UI, Menu, Tooltip, Popover and Modal, which the first paint
 * does not need (docs/web-app.md, "A lighter web app").
 */
export { AccountIssuesModal } from './account-issues-modal.tsx';
export { HelpMenu } from './help-menu.tsx';
export { ManageMenu, NarrowMenu } from './nav-menus.tsx';
export { ProfileMenu } from './profile-menu.tsx';

/** The bar's tooltip. */
export function Hint({ label, children }: { label: string; children: ReactElement }) {
  return (
    <Tooltip label={label} withArrow>
      {children}
    </Tooltip>
  );
}
