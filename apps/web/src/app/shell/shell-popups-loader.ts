import { useEffect, useState } from 'react';

/** The top bar's menus, tooltips and dialog (shell-popups.tsx): Floating UI, Menu, Tooltip and Modal with it. */
export type ShellPopups = typeof import('./shell-popups.tsx');

let loading: Promise<ShellPopups> | undefined;
let loaded: ShellPopups | undefined;

/** Start loading the popups (once); the promise every caller shares. */
export function loadShellPopups(): Promise<ShellPopups> {
  loading ??= import('./shell-popups.tsx').then((popups) => {
    loaded = popups;
    return popups;
  });
  return loading;
}

/**
 * The popups once loaded, asked for right after the shell's first render (docs/web-app.md, "A lighter web app"): the
 * bar paints with its plain buttons, and the menus and tooltips attach to them a moment later.
 */
export function useShellPopups(): ShellPopups | undefined {
  const [popups, setPopups] = useState<ShellPopups | undefined>(loaded);
  useEffect(() => {
    if (popups) return;
    let isMounted = true;
    void loadShellPopups().then((module) => {
      if (isMounted) setPopups(module);
    });
    return () => {
      isMounted = false;
    };
  }, [popups]);
  return popups;
}
