/**
 * Whether a top bar menu is open, held by `DeferredMenu` (deferred.tsx) so that it outlives the swap of its trigger;
 * the menus themselves (shell-popups.tsx) are controlled by it. A file of its own, so the menus need not import the
 * module that loads them.
 */
export interface MenuControl {
  opened: boolean;
  onChange: (opened: boolean) => void;
}
