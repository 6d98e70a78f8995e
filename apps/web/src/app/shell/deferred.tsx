import { cloneElement, useState, type ReactElement, type ReactNode } from 'react';
import { useShellPopups, type ShellPopups } from './shell-popups-loader.ts';

/**
 * A menu whose trigger paints at once and whose Menu (with Floating UI) arrives after the first render. A click that
 * comes before it opens the menu as soon as it is there.
 */
export function DeferredMenu({
  target,
  menu,
}: {
  target: ReactElement<{ onClick?: () => void }>;
  menu: (popups: ShellPopups, target: ReactElement, isOpenAtStart: boolean) => ReactNode;
}) {
  const popups = useShellPopups();
  const [isClicked, setIsClicked] = useState(false);
  if (popups) return menu(popups, target, isClicked);
  return cloneElement(target, { onClick: () => setIsClicked(true) });
}

/** A tooltip added once the popups are loaded; until then the element alone (its aria-label names it). */
export function DeferredHint({ label, children }: { label: string; children: ReactElement }) {
  const popups = useShellPopups();
  return popups ? <popups.Hint label={label}>{children}</popups.Hint> : children;
}
