#!/usr/bin/env node
/**
 * Usage-history benchmark on PostgreSQL: a fresh database, the BUILT server on it, one user with
 * 100 proxy accounts and a year of hourly usage on each, each account in one of five countries
 * (100 x 365 x 24 = 876,000 hourly rows, and the daily rows the server keeps beside them), then
 * GET /api/usage for a year of days and for 31 days of hours, one request at a time, printing
 * p50/p95/p99. `pnpm bench:usage` builds first. Target: a year of days under 100 ms at p95.
 *
 * Settings (environment): BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test: where the
 * benchmark database is created and dropped), BENCH_REQUESTS per row (200), BENCH_KEEP_DB=1 (keep
 * the database, to look at query plans; its name is printed).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { onScratchDatabase, serverDir, signUp, timeRequests } from './harness.mjs';

const require = createRequire(join(serverDir, 'package.json'));
const postgres = require('postgres');

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const ACCOUNTS = 100;
const DAYS = 365;

await onScratchDatabase({ postgres, adminUrl: ADMIN_URL, prefix: 'bench_usage', script: 'bench:usage' }, async ({ server, sql }) => {
  const { cookie, user } = await signUp(server);

  const seeded = Date.now();
  // 99 sub-accounts beside the main one (their passwords are never used here).
  await sql`
    INSERT INTO proxy_accounts (kind, name, proxy_user_id, proxy_password_enc, user_id)
    SELECT 'sub', 'Bench ' || n, 'bench' || lpad(n::text, 5, '0'), 'unused', ${user.id}
    FROM generate_series(1, ${ACCOUNTS - 1}) AS n`;
  const countries = ['US', 'DE', 'GB', 'FR', 'BR'];
  await sql`
    INSERT INTO usage_hourly (proxy_account_id, hour, usage_type, country, protocol, bytes_up, bytes_down, sessions)
    SELECT a.id, date_trunc('hour', now(), 'UTC') - make_interval(hours => h), 'normal_proxy',
           (string_to_array(${countries.join(',')}, ','))[1 + abs(hashtext(a.proxy_user_id)) % 5], 'socks5', 1000 + h, 100000 + h, 1
    FROM proxy_accounts a, generate_series(0, ${DAYS * 24 - 1}) AS h
    WHERE a.user_id = ${user.id}`;
  await sql`
    INSERT INTO usage_daily (proxy_account_id, day, usage_type, country, state, city, protocol, bytes_up, bytes_down, sessions)
    SELECT proxy_account_id, date_trunc('day', hour, 'UTC'), usage_type, country, state, city, protocol, sum(bytes_up), sum(bytes_down), sum(sessions)
    FROM usage_hourly GROUP BY 1, 2, 3, 4, 5, 6, 7`;
  await sql`VACUUM ANALYZE usage_hourly`.catch(() => undefined);
  await sql`VACUUM ANALYZE usage_daily`.catch(() => undefined);
  const [{ hourly }] = await sql`SELECT count(*)::int AS hourly FROM usage_hourly`;
  const [{ daily }] = await sql`SELECT count(*)::int AS daily FROM usage_daily`;

  const now = new Date();
  const yearAgo = new Date(now.getTime() - (DAYS - 1) * 86_400_000);
  const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
  const rows = [
    { name: 'a year of days', path: `/api/usage?granularity=day&from=${yearAgo.toISOString()}&to=${now.toISOString()}` },
    { name: '31 days of hours', path: `/api/usage?granularity=hour&from=${monthAgo.toISOString()}&to=${now.toISOString()}` },
  ];
  console.log(
    `\n${hourly} hourly and ${daily} daily rows for ${ACCOUNTS} accounts, seeded in ${Date.now() - seeded} ms; ${REQUESTS} requests per row, one at a time (database: postgresql)\n`,
  );
  const results = [];
  for (const r of rows) {
    const t = await timeRequests(server.base, r.path, { cookie }, REQUESTS);
    const total = BigInt(t.body.totals.bytesUp) + BigInt(t.body.totals.bytesDown);
    results.push({ request: r.name, points: t.body.points.length, 'total bytes': total, 'p50 ms': t.p50, 'p95 ms': t.p95, 'p99 ms': t.p99 });
  }
  console.table(results);
});
