#!/usr/bin/env node
/**
 * Admin user search at scale on PostgreSQL: a fresh database, the BUILT server on it, 100,000 users
 * (each with a main proxy account, some unverified or suspended, credits and usage spread out),
 * then GET /admin/users with a search by email, by name and by proxy user id, a status filter and a
 * sort, one request at a time, printing p50/p95/p99. `pnpm bench:admin-users` builds first.
 * Target: under 100 ms at p95 for each row.
 *
 * Settings (environment): BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test), BENCH_USERS
 * (100000), BENCH_REQUESTS per row (100), BENCH_KEEP_DB=1 (keep the database; its name is printed).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { adminSignIn, onScratchDatabase, serverDir, timeRequests } from './harness.mjs';

const require = createRequire(join(serverDir, 'package.json'));
const postgres = require('postgres');

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);

await onScratchDatabase({ postgres, adminUrl: ADMIN_URL, prefix: 'bench_admin_users', script: 'bench:admin-users' }, async ({ server, sql }) => {
  const seeded = Date.now();
  const first = ['Ada', 'Bob', 'Chen', 'Dara', 'Eve', 'Femi', 'Gus', 'Hana', 'Ivo', 'Jia'];
  const last = ['Lovelace', 'Hopper', 'Turing', 'Knuth', 'Liskov', 'Ritchie', 'Thompson', 'Hamilton', 'Wirth', 'Kay'];
  await sql`
    INSERT INTO users (email, name, password_hash, email_verified_at, credits_bytes, total_usage_bytes, api_key_hash, api_key_enc, created_at, disabled_at)
    SELECT 'customer' || n || '@mail' || (n % 97) || '.example.com',
           (string_to_array(${first.join(',')}, ','))[1 + n % 10] || ' ' || (string_to_array(${last.join(',')}, ','))[1 + (n / 10) % 10] || ' ' || n,
           'unused',
           CASE WHEN n % 13 = 0 THEN NULL ELSE now() END,
           (n::bigint * 7919) % 50000000000, (n::bigint * 104729) % 9000000000,
           md5('key' || n), 'unused',
           now() - make_interval(secs => n * 37),
           CASE WHEN n % 101 = 0 THEN now() ELSE NULL END
    FROM generate_series(1, ${USERS}) AS n`;
  await sql`
    INSERT INTO proxy_accounts (kind, name, proxy_user_id, proxy_password_enc, user_id)
    SELECT 'main', 'Main', substr(md5('proxy' || id::text), 1, 10), 'unused', id FROM users`;
  await sql`VACUUM ANALYZE users`;
  await sql`VACUUM ANALYZE proxy_accounts`;
  const [{ pid }] = await sql`SELECT proxy_user_id AS pid FROM proxy_accounts ORDER BY proxy_user_id LIMIT 1 OFFSET ${Math.min(4242, USERS - 1)}`;

  const cookie = await adminSignIn(server);
  const rows = [
    { name: 'q by email substring', path: '/admin/users?q=customer4242' },
    { name: 'q by name, any case', path: '/admin/users?q=hopper%2012' },
    { name: 'q by proxy user id part', path: `/admin/users?q=${pid.slice(1, 8)}` },
    { name: 'status=suspended, page 2', path: '/admin/users?status=suspended&page=2&pageSize=50' },
    { name: 'sort=credits desc, 200 rows', path: '/admin/users?sort=credits&order=desc&pageSize=200' },
    { name: 'newest first, page 100', path: '/admin/users?page=100&pageSize=50' },
  ];
  console.log(`\n${USERS} users seeded in ${Date.now() - seeded} ms; ${REQUESTS} requests per row, one at a time (database: postgresql)\n`);
  const results = [];
  for (const r of rows) {
    const t = await timeRequests(server.base, r.path, { cookie }, REQUESTS);
    results.push({ request: r.name, total: t.body.total, rows: t.body.users.length, 'p50 ms': t.p50, 'p95 ms': t.p95, 'p99 ms': t.p99 });
  }
  console.table(results);
});
