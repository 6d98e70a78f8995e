/**
 * Confirm dialogs asked for before their host has loaded. Pages open dialogs with `modals.openConfirmModal` and
 * `modals.open` (@mantine/modals), which dispatch a window event that the provider listens for; the provider arrives
 * after the first page (main.tsx, modals.tsx), and an event dispatched before it is there reaches nobody: a click on
 * "Unsubscribe from all" right after the preference centre painted did nothing. Until the provider is listening,
 * these events are held here, and it is handed them in order once it is.
 */
const eventNames = [
  'openModal',
  'openConfirmModal',
  'openContextModal',
  'closeModal',
  'closeAllModals',
  'updateModal',
  'updateContextModal',
].map((name) => `mantine-modals:${name}`);

const held: CustomEvent[] = [];
let holding = false;
const hold = (event: Event) => {
  held.push(event as CustomEvent);
};

/** Hold the dialogs' events from now on (called once, before the app renders). */
export function holdModalEvents(): void {
  if (holding) return;
  holding = true;
  for (const name of eventNames) window.addEventListener(name, hold);
}

/** The provider listens now: stop holding, and dispatch what was held to it. */
export function releaseModalEvents(): void {
  if (!holding) return;
  holding = false;
  for (const name of eventNames) window.removeEventListener(name, hold);
  for (const event of held.splice(0))
    window.dispatchEvent(new CustomEvent(event.type, { detail: event.detail as unknown }));
}
