/**
 * The positions of items grouped by key, in order; items whose key is undefined are left out. For a
 * batch that goes out as one call per key and whose answers go back to the items by position.
 */
export function positionsBy<T, K>(items: readonly T[], keyOf: (item: T, at: number) => K | undefined): Map<K, number[]> {
  const out = new Map<K, number[]>();
  items.forEach((item, at) => {
    const key = keyOf(item, at);
    if (key === undefined) return;
    const group = out.get(key);
    if (group) group.push(at);
    else out.set(key, [at]);
  });
  return out;
}
