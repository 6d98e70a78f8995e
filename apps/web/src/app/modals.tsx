import { ModalsProvider } from '@mantine/modals';
import { useEffect } from 'react';
import { releaseModalEvents } from './modal-events.ts';

/**
 * The confirm dialogs' host, loaded after the first page (main.tsx). Pages open them with `modals.openConfirmModal`
 * and `modals.open`, which reach the provider through window events, never through its context, so it sits beside
 * the router instead of around it: with it came Mantine's Modal, ScrollArea and Floating UI, none of which
 * /login needs to paint. A dialog asked for before it arrived is held until it listens (modal-events.ts).
 */
export default function AppModals() {
  // The provider's listeners are added in a layout effect, which runs before this one.
  useEffect(() => releaseModalEvents(), []);
  return <ModalsProvider />;
}
