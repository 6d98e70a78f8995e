/**
 * Run `look` every `intervalMs` in the worker, never two at once (a look that outlasts the interval, on a slow
 * database, is not overlapped by the next); returns the function that stops it and waits for a running look.
 */
export function startPoller(
  look: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= look()
      .catch(onError)
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
