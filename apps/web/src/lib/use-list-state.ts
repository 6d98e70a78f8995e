import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

/** What a list keeps in the address: its search, filters and page, each a string, a boolean or a number. */
export type ListStateValue = string | boolean | number;
export type ListStateDefaults = Record<string, ListStateValue>;
/** The defaults' types without their literal values: `{ archived: false }` keeps a boolean. */
export type ListValues<T extends ListStateDefaults> = {
  [K in keyof T]: T[K] extends boolean ? boolean : T[K] extends number ? number : string;
};

export interface ListStateOptions<T extends ListStateDefaults> {
  /**
   * The query parameter each value is kept in, where it is not the value's own name: lists that share a
   * page with others give theirs a prefix (`broadcasts-search`), so they survive opening an item and coming back.
   */
  params?: Partial<Record<keyof T, string>>;
}

export interface ListState<T extends ListStateDefaults> {
  /** The values, read from the address; a missing or unreadable one is its default. */
  values: ListValues<T>;
  /** Changes some values; a value equal to its default leaves the address. Replaces the history entry. */
  set: (patch: Partial<ListValues<T>>) => void;
  /** Back to the defaults (the other query parameters stay). */
  reset: () => void;
}

/** A value of the address read as the type of its default. */
export function readListValue<V extends ListStateValue>(raw: string | null, fallback: V): V {
  if (raw === null) return fallback;
  if (typeof fallback === 'boolean') return (raw === 'true' ? true : raw === 'false' ? false : fallback) as V;
  if (typeof fallback === 'number') {
    const number = Number(raw);
    return (raw.trim() !== '' && Number.isFinite(number) ? number : fallback) as V;
  }
  return raw as V;
}

/** The address's query with the patch applied: defaults (and empty strings) are left out. */
export function writeListValues<T extends ListStateDefaults>(
  current: URLSearchParams,
  defaults: T,
  patch: Partial<ListValues<T>>,
  params: Partial<Record<keyof T, string>> = {},
): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const key of Object.keys(patch) as (keyof T & string)[]) {
    const value = patch[key];
    const name = params[key] ?? key;
    if (value === undefined || value === defaults[key] || value === '') next.delete(name);
    else next.set(name, String(value));
  }
  return next;
}

/**
 * A list page's search and filters, kept in the address with typed defaults: they survive a reload,
 * the back button and opening an item of the list, and a link can share them.
 */
export function useListState<T extends ListStateDefaults>(
  defaults: T,
  options: ListStateOptions<T> = {},
): ListState<T> {
  const [searchParams, setSearchParams] = useSearchParams();
  const { params } = options;
  // Callers pass literals; their content, not their identity, decides when the values change.
  const key = JSON.stringify([defaults, params ?? {}]);
  const values = useMemo(() => {
    const read = {} as Record<string, ListStateValue>;
    for (const [name, fallback] of Object.entries(defaults))
      read[name] = readListValue(searchParams.get(params?.[name] ?? name), fallback);
    return read as ListValues<T>;
  }, [searchParams, key]);
  const set = useCallback(
    (patch: Partial<ListValues<T>>) =>
      setSearchParams((current) => writeListValues(current, defaults, patch, params), { replace: true }),
    [setSearchParams, key],
  );
  const reset = useCallback(
    () =>
      setSearchParams(
        (current) => writeListValues(current, defaults, defaults as Partial<ListValues<T>>, params),
        { replace: true },
      ),
    [setSearchParams, key],
  );
  return { values, set, reset };
}

/**
 * A list's address with only its own query parameters (those starting with `prefix`), for a detail
 * page's way back: the list opens as it was left (docs/web-app.md).
 */
export function listReturnPath(path: string, prefix: string, search: string): string {
  const kept = new URLSearchParams(
    [...new URLSearchParams(search)].filter(([key]) => key.startsWith(prefix)),
  );
  const query = kept.toString();
  return query ? `${path}?${query}` : path;
}
