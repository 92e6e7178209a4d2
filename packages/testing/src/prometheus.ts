/**
 * One sample of a metric from Prometheus text format, by (a subset of) its labels; undefined when
 * the metric has no such sample.
 */
export function promSample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = (m[2] ?? '').split(/,(?=[a-zA-Z_]\w*=")/);
    if (want.every((w) => got.includes(w))) return Number(m[3]);
  }
  return undefined;
}
