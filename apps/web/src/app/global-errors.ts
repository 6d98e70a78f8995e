import { messages } from '@herald/contracts';
import { notifications } from '@mantine/notifications';
import { isApiError } from '../lib/api.ts';

const globalErrorToastId = 'global-error';
const chunkErrorToastId = 'chunk-load-error';
const reloadGuardKey = 'herald:chunk-reload-at';
let isGlobalToastShown = false;

/** Errors that mean "not logged in" are handled by the session, not reported (docs/web-app.md). */
const suppressedMessages = [
  /not logged in/i,
  /no authentication given/i,
  /missing oauth token/i,
  /ResizeObserver loop/i,
];

function isChunkLoadError(message: string): boolean {
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Loading (CSS )?chunk/i.test(
    message,
  );
}

/** POST /v1/logging; a failure to log is only written to the console. */
export function reportError(error: unknown): void {
  const err =
    error instanceof Error ? error : new Error(typeof error === 'string' ? error : JSON.stringify(error));
  const body = {
    message: err.message.slice(0, 5000) || 'Unknown error',
    stack: err.stack?.slice(0, 20000),
    url: window.location.href.slice(0, 2048),
    userAgent: navigator.userAgent.slice(0, 1000),
  };
  fetch('/v1/logging', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
    .then((response) => {
      if (response.status >= 300) console.error('Could not report the error', response.status);
    })
    .catch((logError: unknown) => console.error('Could not report the error', logError));
}

/** One toast at a time for uncaught errors, however many arrive. */
export function showGlobalErrorToast(): void {
  if (isGlobalToastShown) return;
  isGlobalToastShown = true;
  notifications.show({
    id: globalErrorToastId,
    color: 'red',
    title: 'Something went wrong',
    message: messages.globalError,
    autoClose: 10_000,
    onClose: () => {
      isGlobalToastShown = false;
    },
  });
}

/** Shows the chunk-load message and reloads once (not in a loop if the reload fails too). */
export function handleChunkLoadError(): void {
  notifications.show({
    id: chunkErrorToastId,
    color: 'red',
    message: messages.chunkLoadError,
    autoClose: false,
  });
  const lastReload = Number(sessionStorage.getItem(reloadGuardKey) ?? 0);
  if (Date.now() - lastReload > 30_000) {
    sessionStorage.setItem(reloadGuardKey, String(Date.now()));
    setTimeout(() => window.location.reload(), 1_500);
  }
}

function handleUncaught(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error ?? '');
  if (isChunkLoadError(message)) {
    handleChunkLoadError();
    return;
  }
  if (isApiError(error) && error.statusCode === 401) return;
  if (suppressedMessages.some((pattern) => pattern.test(message))) return;
  showGlobalErrorToast();
  reportError(error);
}

/** Window-level handlers for uncaught errors, unhandled rejections and failed chunk loads. */
export function installGlobalErrorHandlers(): void {
  window.addEventListener('error', (event) => {
    // Resource errors (an <img> failing) bubble here without an error object; they are not app errors.
    if (!event.error && !event.message) return;
    handleUncaught(event.error ?? event.message);
  });
  window.addEventListener('unhandledrejection', (event) => handleUncaught(event.reason));
  window.addEventListener('vite:preloadError', (event) => {
    event.preventDefault();
    handleChunkLoadError();
  });
}

export { isChunkLoadError };
