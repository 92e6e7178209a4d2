/**
 * The target policy's per-connection cost: a gateway with 10,000 rules (half `example.com`, half
 * `*.example.com` form) matches a mix of blocked and allowed hosts; prints the median of five runs
 * in microseconds per lookup.
 */
import { TargetPolicyGate } from '../src/target-policy';

const RULES = 10_000;
const gate = new TargetPolicyGate();
gate.set({ rules: Array.from({ length: RULES }, (_, i) => (i % 2 ? `*.site${i}.example` : `site${i}.test`)), blockRawIp: false });
const hosts = Array.from({ length: 1000 }, (_, i) =>
  i % 4 === 0 ? `www.site${i * 2}.test` : i % 4 === 1 ? `a.b.site${i * 2 + 1}.example` : `cdn${i}.allowed-${i}.com`,
);
const LOOKUPS = 1_000_000;
const runs: number[] = [];
let blocked = 0;
for (let r = 0; r < 5; r++) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < LOOKUPS; i++) if (gate.blocks(hosts[i % hosts.length]!)) blocked++;
  runs.push(Number(process.hrtime.bigint() - start) / 1000 / LOOKUPS);
}
runs.sort((a, b) => a - b);
console.log(
  `target policy: ${RULES} rules, ${LOOKUPS} lookups per run: median ${runs[2]!.toFixed(3)} µs per lookup (best ${runs[0]!.toFixed(3)}, worst ${runs[4]!.toFixed(3)}); ${blocked / 5} blocked per run`,
);
