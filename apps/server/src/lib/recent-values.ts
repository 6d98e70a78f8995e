/**
 * Values computed from keys seen lately, for hot paths where a few keys make most calls (the user agents of a
 * few mail clients, the links of one email). Bounded: emptied when it reaches `limit` keys.
 */
export function recentValues<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    if (known.has(key)) return known.get(key) as V;
    const value = compute(key);
    if (known.size >= limit) known.clear();
    known.set(key, value);
    return value;
  };
}
