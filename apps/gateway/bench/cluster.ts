/**
 * `pnpm bench:cluster`: ProxyHub past one machine, on one machine. Starts 2 built servers (two
 * ports, one PostgreSQL database, one Redis) and 3 built gateways spread over them, then:
 *   - 60 users sign up, verify and sign in across both servers (a balancer's choice: any server),
 *   - codes are minted and redeemed on both servers at once (some raced by two users, one per
 *     server), more logins and redemptions keep going while traffic flows,
 *   - every user downloads through its gateway (CONNECT or SOCKS5, loopback target, paced),
 *   - mid-run one server and one gateway are killed with SIGKILL and started again,
 * and checks: the ledger invariant exactly, billed usage within 1 % of the bytes the clients moved,
 * codes credited once, and a login limit reached on one server holding on the other (Redis).
 * Prints figures and PASS/FAIL lines; exits 1 on a failure. Loopback only, bounded in time.
 *
 * Settings: BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test: where the scratch database is
 * created and dropped), BENCH_REDIS_URL (redis://127.0.0.1:6379), CLUSTER_USERS (60). The run's
 * rate-limit counters live under a key prefix of their own in Redis and expire by themselves.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { checkLedger } from '@proxyhub/api';
import { createDb, users } from '@proxyhub/db';
import { HttpClient, STRONG_PASSWORD, linkToken, type Mail } from '@proxyhub/testing';
import { download, freePort, ProductProcess, productEnv, startPacedTarget, type Download, type RemoteUser } from '../test/crash/processes';

const MiB = 1024 * 1024;
const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USERS = Number(process.env.CLUSTER_USERS ?? 60);
const DOWNLOAD_BYTES = 6 * MiB;
const RATE = 1 * MiB;
const INTERNAL_KEY = `cluster-internal-key-${randomUUID()}`;
const DEADLINE = Date.now() + 170_000;

const results: Array<{ ok: boolean; line: string }> = [];
function check(ok: boolean, line: string): void {
  results.push({ ok, line });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
}
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
const started = Date.now();

/** Runs `fn` over items with at most `n` at a time. */
async function pool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

// --- the scratch database, the processes ---
const dbName = `bench_cluster_${Date.now()}`;
const admin = await createDb({ databaseUrl: ADMIN_URL, max: 1 });
await admin.db.execute(sql.raw(`CREATE DATABASE ${dbName}`));
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-cluster-'));
const serverPorts = [await freePort(), await freePort()];
const serverUrls = serverPorts.map((p) => `http://127.0.0.1:${p}`);
// One deployment: the same public origin and secrets on both servers (a balancer would sit at it).
const publicUrl = serverUrls[0]!;
const base: NodeJS.ProcessEnv = { ...productEnv(dataDir, INTERNAL_KEY), LOG_FORMAT: 'json' };
const servers = serverPorts.map(
  (port, i) =>
    new ProductProcess(
      `server ${'AB'[i]}`,
      'apps/server/dist/main.js',
      {
        ...base,
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL,
        REDIS_KEY_PREFIX: `cluster-${dbName}`,
        APP_SECRET: 'cluster-app-secret-0123456789abcdef0123',
        ADMIN_PASSWORD: 'Cluster-Admin-123',
        // Clients below name their address in X-Forwarded-For, as a balancer would.
        TRUST_PROXY: '1',
        WEB_DIST_DIR: join(dataDir, 'no-web'),
      },
      'ProxyHub server ready',
    ),
);
const gatewayPorts = [await freePort(), await freePort(), await freePort()];
const gateways = gatewayPorts.map(
  (port, i) =>
    new ProductProcess(
      `gateway ${i + 1}`,
      'apps/gateway/dist/main.js',
      {
        ...base,
        PROXYHUB_GATEWAY_CHILD: '1',
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: String(port),
        // No entry ports (20000-20099 by default): processes of other tests may hold them.
        GATEWAY_ENTRY_PORTS: 'off',
        GATEWAY_METRICS_PORT: 'off',
        GATEWAY_SERVER_URL: serverUrls[i % 2],
        GATEWAY_ALLOW_PRIVATE: '1',
        GATEWAY_ID: `cluster-${i + 1}`,
        GATEWAY_STATE_DIR: join(dataDir, `gateway-${i + 1}`),
      },
      'ProxyHub gateway ready',
    ),
);
const target = await startPacedTarget();

async function shutdown(): Promise<void> {
  await Promise.allSettled(gateways.map((g) => g.stop()));
  await Promise.allSettled(servers.map((s) => s.stop()));
  await target.close();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const p of [...gateways, ...servers]) p.child?.kill('SIGKILL');
    process.exit(1);
  });
}

// --- HTTP as a balancer would route it: the preferred server, the other one when it is down ---
interface ClusterUser extends RemoteUser {
  email: string;
  http: HttpClient;
}
type Answer<T> = { status: number; body: T; server: number };

async function call<T = Record<string, unknown>>(http: HttpClient, method: string, path: string, body: unknown, prefer: number): Promise<Answer<T>> {
  let last: unknown;
  for (const k of [prefer % 2, (prefer + 1) % 2]) {
    try {
      const res = await fetch(serverUrls[k]! + path, {
        method,
        headers: { ...http.ambientHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(20_000),
      });
      http.storeCookies(res);
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T, server: k };
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`${method} ${path}: no server answered (${String(last)})`);
}

function mailFor(to: string): Promise<Mail> {
  const dir = join(dataDir, 'mail');
  return (async () => {
    for (let i = 0; i < 400; i++) {
      let files: string[] = [];
      try {
        files = readdirSync(dir).filter((f) => f.endsWith('.json'));
      } catch {
        // not written yet
      }
      for (const f of files) {
        const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Mail;
        if (m.to === to) return m;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no mail for ${to}`);
  })();
}

const internal = new HttpClient(publicUrl, null);
internal.bearer = INTERNAL_KEY;
async function mintCodes(gb: number, quantity: number, prefer: number): Promise<string[]> {
  const r = await call<{ codes: Array<{ code: string }> }>(internal, 'POST', '/admin/codes/create', { creditsGB: gb, quantity, expiresAt: null }, prefer);
  if (r.status !== 200) throw new Error(`create codes: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.codes.map((c) => c.code);
}

async function signUp(i: number): Promise<ClusterUser> {
  // A distinct client address per user (documentation range; only a header, no traffic goes there).
  const http = new HttpClient(publicUrl, publicUrl, `198.18.${i >> 8}.${i & 255}`);
  const email = `cluster-${i}-${randomUUID().slice(0, 6)}@example.com`;
  const reg = await call(http, 'POST', '/auth/register', { email, password: STRONG_PASSWORD, name: `Cluster ${i}` }, i);
  if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const verify = await call(http, 'GET', `/auth/verify-email?token=${linkToken(await mailFor(email))}`, undefined, i + 1);
  if (verify.status !== 200) throw new Error(`verify: ${verify.status}`);
  const login = await call<{ user: { id: string; proxyUserId: string; proxyPassword: string } }>(
    http,
    'POST',
    '/auth/login',
    { email, password: STRONG_PASSWORD },
    i,
  );
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const u = login.body.user;
  return {
    id: u.id,
    email,
    http,
    client: http,
    proxyUserId: u.proxyUserId,
    proxyPassword: u.proxyPassword,
    username: `${u.proxyUserId}_US_60_CLUSTER${i % 10}`,
  };
}

let exitCode = 0;
try {
  // Both servers start at once on the empty database: one migrates, the other waits for it.
  await Promise.all(servers.map((s) => s.start()));
  await Promise.all(gateways.map((g) => g.start()));
  log(`2 servers (${serverUrls.join(', ')}) and 3 gateways (ports ${gatewayPorts.join(', ')}, on servers A, B, A) on ${dbName} and ${REDIS_URL}`);

  const people = await pool(
    Array.from({ length: USERS }, (_, i) => i),
    8,
    signUp,
  );
  const signUpsOn = [0, 0];
  for (let i = 0; i < USERS; i++) signUpsOn[i % 2]! += 1;
  log(`${people.length} users signed up, verified on the other server and signed in (${signUpsOn.join(' / ')} registrations on A / B)`);

  // One 1 GB code each, redeemed on alternating servers at once; and 10 codes raced by two users each, one per server.
  const codes = await mintCodes(1, USERS, 0);
  const redeemed = await pool(people, 16, (u, i) => call(u.http, 'POST', '/auth/redeem-code', { code: codes[i] }, i));
  check(
    redeemed.every((r) => r.status === 200),
    `${USERS} codes redeemed across both servers (${redeemed.filter((r) => r.server === 0).length} on A, ${redeemed.filter((r) => r.server === 1).length} on B)`,
  );
  const raced = await mintCodes(0.1, 10, 1);
  const races = await Promise.all(
    raced.map(async (code, k) => {
      const [a, b] = await Promise.all([
        call(people[2 * k]!.http, 'POST', '/auth/redeem-code', { code }, 0),
        call(people[2 * k + 1]!.http, 'POST', '/auth/redeem-code', { code }, 1),
      ]);
      return [a, b].filter((r) => r.status === 200).length;
    }),
  );
  check(
    races.every((n) => n === 1),
    `10 codes each redeemed by two users at once, one on each server: credited once each (${races.join(',')})`,
  );

  // --- traffic, with logins and redemptions going on, and the kills ---
  const downloads: Download[] = [];
  const protocolOf = (i: number) => (i % 2 === 0 ? 'connect' : 'socks5');
  const round = async (label: string) => {
    const ds = await pool(people, USERS, (u, i) => download(gatewayPorts[i % 3]!, u, protocolOf(i), target.port, DOWNLOAD_BYTES, RATE));
    downloads.push(...ds);
    log(`${label}: ${ds.length} downloads of ${DOWNLOAD_BYTES / MiB} MiB at ${RATE / MiB} MiB/s through 3 gateways`);
    return ds;
  };
  let apiCalls = 0;
  let apiFailures = 0;
  let busy = true;
  const background = (async () => {
    const extra = await mintCodes(0.1, 100, 0);
    let k = 0;
    while (busy && Date.now() < DEADLINE) {
      const u = people[k % USERS]!;
      const login = await call(u.http, 'POST', '/auth/login', { email: u.email, password: STRONG_PASSWORD }, k).catch(() => null);
      const redeem = k < extra.length ? await call(u.http, 'POST', '/auth/redeem-code', { code: extra[k] }, k + 1).catch(() => null) : null;
      apiCalls += redeem ? 2 : 1;
      if (login?.status !== 200) apiFailures += 1;
      if (redeem && redeem.status !== 200) apiFailures += 1;
      k += 1;
    }
  })();

  const first = await round('round 1');
  await new Promise((r) => setTimeout(r, 2000));
  log('kill -9 server B and gateway 3 (traffic flowing; gateway 2 reports to B)');
  await Promise.all([servers[1]!.stop('SIGKILL'), gateways[2]!.stop('SIGKILL')]);
  await new Promise((r) => setTimeout(r, 1500));
  await servers[1]!.start();
  await gateways[2]!.start();
  log('server B and gateway 3 restarted');
  await Promise.all(first.map((d) => d.done));
  const second = await round('round 2');
  await Promise.all(second.map((d) => d.done));
  busy = false;
  await background;
  log(`${apiCalls} logins and redemptions during traffic, ${apiFailures} not 200 (a redemption retried after a kill may find its code already used)`);

  // --- a login limit reached on A holds on B ---
  const victim = people[0]!;
  const attacker = new HttpClient(publicUrl, publicUrl, '198.19.0.1');
  const wrong = [];
  for (let i = 0; i < 10; i++) wrong.push((await call(attacker, 'POST', '/auth/login', { email: victim.email, password: 'Wrong-Password-1' }, 0)).status);
  const onB = await call(attacker, 'POST', '/auth/login', { email: victim.email, password: 'Wrong-Password-1' }, 1);
  check(
    wrong.every((s) => s === 401) && onB.status === 429 && onB.server === 1,
    `10 wrong passwords on server A (${[...new Set(wrong)].join(',')}), the 11th on server B: ${onB.status} (shared in Redis)`,
  );

  // --- the books, once every gateway has reported and returned its leases ---
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all(servers.map((s) => s.stop()));
  const db = await createDb({ databaseUrl: dbUrl.toString(), max: 2 });
  try {
    const ledger = await checkLedger(db.db);
    check(ledger.ok && ledger.leased === 0n, `ledger: entries ${ledger.entries} = credits ${ledger.credits} + leased ${ledger.leased} + usage ${ledger.usage}`);
    const [usage] = await db.db.select({ v: sql<string>`coalesce(sum(${users.totalUsageBytes}), 0)::text` }).from(users);
    const billed = Number(usage!.v);
    const moved = downloads.reduce((n, d) => n + d.sent + d.received, 0);
    const diff = Math.abs(billed - moved) / moved;
    check(
      diff <= 0.01,
      `billed ${(billed / MiB).toFixed(2)} MiB for ${(moved / MiB).toFixed(2)} MiB moved by the clients (${(diff * 100).toFixed(3)} % apart)`,
    );
  } finally {
    await db.close();
  }
} catch (err) {
  console.error(err);
  for (const p of [...servers, ...gateways]) if (p.output) console.error(`--- ${p.name} (last lines)\n${p.output.slice(-2000)}`);
  exitCode = 1;
} finally {
  await shutdown();
  await admin.db.execute(sql.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(() => undefined);
  await admin.close();
  rmSync(dataDir, { recursive: true, force: true });
}
const failed = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(0)} s)`);
process.exit(exitCode || failed ? 1 : 0);
