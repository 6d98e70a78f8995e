import { notifications } from '@mantine/notifications';

/** A failure toast for a call that worked but whose receiver refused (a test message or event): what failed and why. */
export function notifyProblem(title: string, reason: string): void {
  notifications.show({ color: 'red', title, message: reason });
}
