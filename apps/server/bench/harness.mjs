/**
 * What the server benchmarks share: the BUILT server (apps/server/dist/main.js) started as a child
 * on a free port with a temporary DATA_DIR (file outbox), and a user signed up through the
 * product's own API (register, verify from the outbox, login).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const mainJs = join(serverDir, 'dist', 'main.js');

/** A loopback port nothing listens on now. */
export function freePort() {
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
export async function waitFor(what, check, timeoutMs = 60_000) {
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

/** Starts the built server; `databaseUrl` null means the embedded PGlite. `script` names the pnpm script that builds first. */
export async function startBuiltServer({ databaseUrl = null, script }) {
  if (!existsSync(mainJs)) {
    console.error(`${mainJs} is missing: run \`pnpm ${script}\` (it builds the server first).`);
    process.exit(1);
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
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the server (NODE_OPTIONS refuses --cpu-prof).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, mainJs], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stopping = false;
  child.once('exit', (code) => {
    if (!stopping) {
      console.error(`server exited early with code ${code}`);
      process.exit(1);
    }
  });
  await waitFor('the server to answer /health', async () => (await fetch(`${base}/health`)).ok);
  return {
    base,
    dataDir,
    pid: child.pid,
    admin: { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD },
    database: databaseUrl ? 'postgresql' : 'pglite',
    async stop() {
      if (stopping) return;
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Registers, verifies and signs in a new user; returns its session cookie and the user from /auth/user. */
export async function signUp({ base, dataDir }) {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'BenchSecret123';
  const json = { 'content-type': 'application/json', origin: base };
  const reg = await fetch(`${base}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password, name: 'Bench User' }) });
  if (!reg.ok) throw new Error(`register failed: ${reg.status} ${await reg.text()}`);
  const token = await waitFor('the verification mail in the outbox', () => {
    const dir = join(dataDir, 'mail');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
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
  const me = await (await fetch(`${base}/auth/user`, { headers: { cookie } })).json();
  return { cookie, user: me.user };
}

/** Signs the bootstrap admin in; returns the admin session cookie. */
export async function adminSignIn({ base, admin }) {
  const r = await fetch(`${base}/auth/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ username: admin.username, password: admin.password }),
  });
  if (!r.ok) throw new Error(`admin login failed: ${r.status} ${await r.text()}`);
  const cookie = r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('admin_session='));
  if (!cookie) throw new Error('admin login set no admin_session cookie');
  return cookie;
}

/** A fresh PostgreSQL database for one benchmark run under `adminUrl`; drop() removes it (BENCH_KEEP_DB=1 keeps it). */
export async function scratchDatabase(postgres, adminUrl, prefix) {
  const name = `${prefix}_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database ${name}`);
      else await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Times `path` one request at a time: p50/p95/p99 in ms, and the last answer. */
export async function timeRequests(base, path, headers, count) {
  const first = await fetch(base + path, { headers });
  const body = await first.json();
  if (first.status !== 200) throw new Error(`${path}: ${first.status} ${JSON.stringify(body)}`);
  const times = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  return { body, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/**
 * A benchmark on a scratch PostgreSQL database with the built server on it: `run({ server, sql })`
 * does the seeding and timing; everything is stopped and dropped afterwards, also on failure.
 */
export async function onScratchDatabase({ postgres, adminUrl, prefix, script }, run) {
  const scratch = await scratchDatabase(postgres, adminUrl, prefix);
  const server = await startBuiltServer({ databaseUrl: scratch.url, script });
  const sql = postgres(scratch.url, { max: 1, onnotice: () => undefined });
  try {
    await run({ server, sql });
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await sql.end();
    await server.stop();
    await scratch.drop();
  }
}
