/**
 * A pure function of one string, remembered: a rotating customer opens a new connection for almost
 * every request, from the same address with the same username, so each login would otherwise parse
 * them again (ipaddr.js and the username's regular expressions were a tenth of the gateway's own
 * JavaScript a connection in `BENCH_ROWS=rotating`). Bounded: past `max` keys it starts over, so
 * a client naming endless new strings costs memory no more than that.
 */
export function memoByString<T>(fn: (s: string) => T, max = 10_000): (s: string) => T {
  const known = new Map<string, T>();
  return (s) => {
    let v = known.get(s);
    if (v === undefined && !known.has(s)) {
      v = fn(s);
      if (known.size >= max) known.clear();
      known.set(s, v);
    }
    return v as T;
  };
}
