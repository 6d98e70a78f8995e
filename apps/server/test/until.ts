/** A value that passes an `if`: what `until` hands back. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

export interface UntilOptions {
  /** How long to keep asking, in ms; then `until` throws. */
  timeout: number;
  /** The pause between two questions, in ms (100 unless told). */
  interval?: number;
  /** What was awaited, for the error; a function is asked once, at the timeout (to describe the state then). */
  message?: string | (() => string | Promise<string>);
}

/**
 * The one way the server's tests wait for something (docs/operations.md, "Tests, CI and the suites"): asks `condition` until it gives a
 * truthy value and resolves with that value; an exception counts as "not yet". After `timeout` ms it throws an Error
 * naming `message` and the last value or exception seen. A test never waits a fixed time for work to be done.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  options: UntilOptions,
): Promise<Truthy<Awaited<T>>> {
  const { timeout, interval = 100 } = options;
  const started = Date.now();
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Truthy<Awaited<T>>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    const left = timeout - (Date.now() - started);
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
  }
  const what =
    typeof options.message === 'function' ? await options.message() : (options.message ?? 'the condition');
  const seen =
    'error' in last
      ? `the last attempt threw ${describe(last.error)}`
      : `the last value was ${describe(last.value)}`;
  throw new Error(
    `${what}: not within ${timeout} ms; ${seen}`,
    'error' in last ? { cause: last.error } : undefined,
  );
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return String(value);
  }
}
