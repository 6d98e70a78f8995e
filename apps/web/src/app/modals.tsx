import { ModalsProvider } from '@mantine/modals';

/**
 * The confirm dialogs' host, loaded after the first page (main.tsx). Pages open them with `modals.openConfirmModal`
 * and `modals.open`, which reach the provider through window events, never through its context, so it sits beside
 * the router instead of around it: with it came Mantine's Modal, ScrollArea and Floating UI, none of which
 * /login needs to paint.
 */
export default function AppModals() {
  return <ModalsProvider />;
}
