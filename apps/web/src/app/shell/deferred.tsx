import { cloneElement, useLayoutEffect, useRef, useState, type ReactElement, type ReactNode } from 'react';
import type { MenuControl } from './menu-control.ts';
import { useShellPopups, type ShellPopups } from './shell-popups-loader.ts';

/**
 * A menu whose trigger paints at once and whose Menu (with Floating UI) arrives after the first render
 * (docs/web-app.md, "A lighter web app"). A click on the plain button opens the menu as soon as it is there.
 *
 * A press that straddles the arrival is the hard case: the press went to the plain button, and the Menu's trigger is a
 * new button. The release's click then either reaches the new button (Menu opens itself) or reaches neither (the
 * browser sends it to their parent). So the press alone opens nothing; once the Menu is there, the release opens it
 * after its click has had its turn, when that click has not. Opening on the press instead let the release's click
 * toggle the menu shut again. The click stays for the keyboard (Enter and Space click without a press).
 */
export function DeferredMenu({
  target,
  menu,
}: {
  target: ReactElement<{ onClick?: () => void; onPointerDown?: () => void }>;
  menu: (popups: ShellPopups, target: ReactElement, control: MenuControl) => ReactNode;
}) {
  const popups = useShellPopups();
  const [opened, setOpened] = useState(false);
  const isPressPending = useRef(false);
  const hasPopups = popups !== undefined;

  useLayoutEffect(() => {
    if (!hasPopups || !isPressPending.current) return;
    isPressPending.current = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onRelease = () => {
      // After the release's click, which reaches the new trigger (and opens the menu) or nothing.
      timer = setTimeout(() => setOpened(true), 0);
    };
    window.addEventListener('pointerup', onRelease, { capture: true, once: true });
    return () => {
      window.removeEventListener('pointerup', onRelease, { capture: true });
      clearTimeout(timer);
    };
  }, [hasPopups]);

  if (popups) return menu(popups, target, { opened, onChange: setOpened });
  return cloneElement(target, {
    onPointerDown: () => {
      isPressPending.current = true;
    },
    onClick: () => {
      isPressPending.current = false;
      setOpened(true);
    },
  });
}

/** A tooltip added once the popups are loaded; until then the element alone (its aria-label names it). */
export function DeferredHint({ label, children }: { label: string; children: ReactElement }) {
  const popups = useShellPopups();
  return popups ? <popups.Hint label={label}>{children}</popups.Hint> : children;
}
