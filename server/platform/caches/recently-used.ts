/*
 * A Map kept as a least-recently-used cache: its insertion order is the order of use, the least
 * recently used first. For caches of many small entries keyed by an organization's thing (a status
 * list's signed bytes, its permutation table), where forgetting the oldest-made entry instead made lists
 * used in turn past the limit miss every time (docs/performance.md, "Ninth pass: a status list's table
 * per organization").
 */

/** The value kept for `key`, now the most recently used; undefined when none is kept. */
export function useRecent<K, V>(kept: Map<K, V>, key: K): V | undefined {
  const value = kept.get(key)
  if (value === undefined) return undefined
  kept.delete(key)
  kept.set(key, value)
  return value
}

/** Keeps `value` for `key` as the most recently used, forgetting the least recently used past `limit`. */
export function keepRecent<K, V>(kept: Map<K, V>, key: K, value: V, limit: number): void {
  kept.delete(key)
  kept.set(key, value)
  while (kept.size > limit) kept.delete(kept.keys().next().value as K)
}
