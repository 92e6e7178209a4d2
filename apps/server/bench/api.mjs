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
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(serverDir, 'package.json'));
const autocannon = require('autocannon');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const mainJs = join(serverDir, 'dist', 'main.js');
if (!existsSync(mainJs)) {
  console.error(`${mainJs} is missing: run \`pnpm bench:api\` (it builds the server first).`);
  process.exit(1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Polls until `check` returns a value (a child process gives no event to await). */
async function waitFor(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-bench-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;

const env = { ...process.env };
for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'PUBLIC_URL']) delete env[k];
Object.assign(env, {
  NODE_ENV: 'development',
  HOST: '127.0.0.1',
  PORT: String(port),
  PUBLIC_URL: base,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  APP_SECRET: 'bench-app-secret-0123456789abcdef0123456789',
  INTERNAL_API_KEY: 'bench-internal-key-0123456789abcdef012345',
  ADMIN_PASSWORD: 'Bench-Admin-Password-1',
  WEB_DIST_DIR: join(dataDir, 'no-web'),
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
});

const child = spawn(process.execPath, [mainJs], { env, stdio: ['ignore', 'inherit', 'inherit'] });
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
}
child.once('exit', (code) => {
  if (!stopping) {
    console.error(`server exited early with code ${code}`);
    process.exit(1);
  }
});

try {
  await waitFor('the server to answer /health', async () => (await fetch(`${base}/health`)).ok);

  const email = `bench-${Date.now()}@example.com`;
  const password = 'BenchSecret123';
  const json = { 'content-type': 'application/json', origin: base };
  const reg = await fetch(`${base}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password, name: 'Bench User' }) });
  if (!reg.ok) throw new Error(`register failed: ${reg.status} ${await reg.text()}`);
  const token = await waitFor('the verification mail in the outbox', () => {
    const dir = join(dataDir, 'mail');
    for (const f of readdirSync(dir)) {
      const m = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      if (m.to === email) return /token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1];
    }
    return undefined;
  });
  const verify = await fetch(`${base}/auth/verify-email?token=${token}`);
  if (!verify.ok) throw new Error(`verify failed: ${verify.status} ${await verify.text()}`);
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
  if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('session='));
  if (!cookie) throw new Error('login set no session cookie');

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
    `\nautocannon: ${CONNECTIONS} connections, ${DURATION} s per row, server ${mainJs.replace(process.cwd() + '/', '')} (database: ${env.DATABASE_URL ? 'postgresql' : 'pglite'})\n`,
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
  await stop();
}
