#!/usr/bin/env node
/**
 * API benchmark: starts the BUILT server (apps/server/dist/main.js) on a free port with a temporary
 * DATA_DIR (embedded PGlite, file outbox), signs a user up through the product's own API (register,
 * verify from the outbox, login), then runs autocannon at a fixed concurrency against:
 *   - GET /health                      (baseline: no database)
 *   - GET /auth/user with the session cookie
 *   - a batched tRPC GET (auth.me + gateway.endpoint in one request)
 * and prints requests/s and p50/p99 latency per row. `pnpm bench:api` builds first.
 *
 * Settings (environment): BENCH_CONNECTIONS (20), BENCH_DURATION seconds (10),
 * BENCH_DATABASE_URL (use PostgreSQL instead of the embedded PGlite).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { mainJs, serverDir, signUp, startBuiltServer } from './harness.mjs';

const require = createRequire(join(serverDir, 'package.json'));
const autocannon = require('autocannon');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);

const server = await startBuiltServer({ databaseUrl: process.env.BENCH_DATABASE_URL ?? null, script: 'bench:api' });
const { base } = server;

try {
  const { cookie } = await signUp(server);

  const batchPath = `/trpc/auth.me,gateway.endpoint?batch=1&input=${encodeURIComponent('{}')}`;
  const rows = [
    { name: 'GET /health (baseline)', path: '/health', headers: {} },
    { name: 'GET /auth/user (session cookie)', path: '/auth/user', headers: { cookie } },
    { name: 'tRPC batch auth.me+gateway.endpoint', path: batchPath, headers: { cookie } },
  ];
  // Each row must answer 200 before it is measured, or the figures would time error paths.
  for (const r of rows) {
    const res = await fetch(base + r.path, { headers: r.headers });
    if (res.status !== 200) throw new Error(`${r.name}: expected 200, got ${res.status} ${await res.text()}`);
  }

  console.log(
    `\nautocannon: ${CONNECTIONS} connections, ${DURATION} s per row, server ${mainJs.replace(process.cwd() + '/', '')} (database: ${server.database})\n`,
  );
  const results = [];
  for (const r of rows) {
    const result = await autocannon({ url: base + r.path, connections: CONNECTIONS, duration: DURATION, headers: r.headers });
    results.push({
      endpoint: r.name,
      'req/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      requests: result.requests.total,
      'non-2xx': result.non2xx,
      errors: result.errors + result.timeouts,
    });
  }
  console.table(results);
  const bad = results.filter((r) => r['non-2xx'] || r.errors);
  if (bad.length) {
    console.error(`some rows had failed requests: ${bad.map((r) => r.endpoint).join(', ')}`);
    process.exitCode = 1;
  }
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
