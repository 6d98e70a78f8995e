import { useEffect, useState } from 'react';

/** The top bar's menus, tooltips and dialog (shell-popups.tsx): Floating UI, Menu, Tooltip and Modal with it. */
export type ShellPopups = typeof import('./shell-popups.tsx');

let loading: Promise<ShellPopups> | undefined;
let loaded: ShellPopups | undefined;

/**
 * Start loading the popups (once while it goes well); the promise every caller shares. A failed load is forgotten, so
 * the next caller loads again rather than sharing the failure.
 */
export function loadShellPopups(): Promise<ShellPopups> {
  loading ??= import('./shell-popups.tsx').then(
    (popups) => {
      loaded = popups;
      return popups;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** How long the shell waits before it loads the popups again after a failed load (a dropped connection, a deploy). */
const retryMs = [1_000, 3_000, 10_000];

/**
 * The popups once loaded, asked for right after the shell's first render (docs/web-app.md, "A lighter web app"): the
 * bar paints with its plain buttons, and the menus and tooltips attach to them a moment later.
 */
export function useShellPopups(): ShellPopups | undefined {
  const [popups, setPopups] = useState<ShellPopups | undefined>(loaded);
  useEffect(() => {
    if (popups) return;
    let isMounted = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = (attempt: number) => {
      loadShellPopups().then(
        (module) => {
          if (isMounted) setPopups(module);
        },
        () => {
          const wait = retryMs[attempt];
          if (isMounted && wait !== undefined) timer = setTimeout(() => load(attempt + 1), wait);
        },
      );
    };
    load(0);
    return () => {
      isMounted = false;
      clearTimeout(timer);
    };
  }, [popups]);
  return popups;
}
