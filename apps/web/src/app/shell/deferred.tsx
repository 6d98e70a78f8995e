import { cloneElement, useState, type ReactElement, type ReactNode } from 'react';
import { useShellPopups, type ShellPopups } from './shell-popups-loader.ts';

/**
 * A menu whose trigger paints at once and whose Menu (with Floating UI) arrives after the first render. A click that
 * comes before it opens the menu as soon as it is there.
 *
 * The press counts, not only the click: when the Menu arrives, its trigger is a new button, and a click whose press
 * went to the plain button and whose release to the new one reaches neither (the browser sends it to a parent). The
 * click stays for the keyboard (Enter and Space click without a press).
 */
export function DeferredMenu({
  target,
  menu,
}: {
  target: ReactElement<{ onClick?: () => void; onPointerDown?: () => void }>;
  menu: (popups: ShellPopups, target: ReactElement, isOpenAtStart: boolean) => ReactNode;
}) {
  const popups = useShellPopups();
  const [isClicked, setIsClicked] = useState(false);
  if (popups) return menu(popups, target, isClicked);
  const open = () => setIsClicked(true);
  return cloneElement(target, { onClick: open, onPointerDown: open });
}

/** A tooltip added once the popups are loaded; until then the element alone (its aria-label names it). */
export function DeferredHint({ label, children }: { label: string; children: ReactElement }) {
  const popups = useShellPopups();
  return popups ? <popups.Hint label={label}>{children}</popups.Hint> : children;
}
