import '@mantine/notifications/styles.css';
import { Notifications } from '@mantine/notifications';

/**
 * The toasts' container, loaded after the first page (main.tsx): `notifications.show` only writes to Mantine's store,
 * which the entry holds, and a toast shown before this arrives appears once it has.
 */
export default function AppNotifications() {
  return <Notifications position="top-right" limit={5} />;
}
