import { notifications } from '@mantine/notifications';
import { errorMessage } from './api.ts';

/** A success toast (top-right, like every other toast). */
export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', message });
}

/**
 * A failure toast: the server's message first (docs/web-app.md), the generic text otherwise.
 * When the server said something specific, the generic text becomes the title so both are visible.
 */
export function notifyError(error: unknown, fallback: string, options: { id?: string } = {}): void {
  const message = errorMessage(error, fallback);
  notifications.show({
    id: options.id,
    color: 'red',
    title: message === fallback ? undefined : fallback,
    message,
  });
}
