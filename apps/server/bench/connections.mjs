#!/usr/bin/env node
/**
 * Connection-log benchmark on PostgreSQL (`pnpm bench:connections`, which builds first): a fresh
 * database, the BUILT server on it, and
 * 1. 1,000,000 connection records of one user written through the report path as gateways send
 *    them (gateway.reserveLease, then gateway.report with the usage that bills them and their
 *    records), several writers at once: the sustained rate (target >= 20,000 records/s);
 * 2. the built gateway's throughput with the log on and off (GATEWAY_CONNECTION_LOG=0), two
 *    gateways on the same server, loaded at once in each round: HTTP forward requests/s (each request is a
 *    record) and CONNECT tunnels/s (each tunnel is a record) (target: within 5 %). On a machine
 *    with two or more cores the gateways, the load and the target run on the first cores and the
 *    server and PostgreSQL on the last one (as on their own machines in production): what is
 *    compared is the gateway's own cost of the log, not the server's storing of it taking the
 *    gateway's core;
 * 3. that user's month of connections read back: pages of GET /api/connections (the first and
 *    following ones by cursor), the first page for one target, and /api/usage's by-target
 *    breakdown of the month: p50/p95/p99 (target p95 < 100 ms for pages and target pages).
 *
 * Settings (environment): BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test, where the
 * benchmark database is created and dropped), BENCH_RECORDS (1,000,000), BENCH_BATCH (records per
 * report, 10,000), BENCH_WRITERS (concurrent gateways writing, 4), BENCH_ROUNDS (gateway rounds, 15),
 * BENCH_SECONDS (per HTTP measurement, 3), BENCH_REQUESTS (per query row, 100), BENCH_KEEP_DB=1,
 * BENCH_NODE_ARGS (extra node flags for the gateways, e.g. profiling), BENCH_FULL_ROWS=1 (phase 1 sends rows with
 * every field, as gateways did before compact rows), BENCH_AA=1 (both gateways with the
 * log off: what the comparison reads when nothing differs, about 100 %), BENCH_SEQUENTIAL=1 (the
 * gateways measured one after the other in alternating order instead of at once).
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { freePort, onScratchDatabase, serverDir, signUp, timeRequests, waitFor } from './harness.mjs';

const require = createRequire(join(serverDir, 'package.json'));
const postgres = require('postgres');
const autocannon = require('autocannon');

const num = (name, def) => Number(process.env[name] ?? def);
const ADMIN_URL = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RECORDS = num('BENCH_RECORDS', 1_000_000);
const BATCH = num('BENCH_BATCH', 10_000);
const WRITERS = num('BENCH_WRITERS', 4);
const ROUNDS = num('BENCH_ROUNDS', 15);
const SECONDS = num('BENCH_SECONDS', 3);
const REQUESTS = num('BENCH_REQUESTS', 100);
// The control: both gateways with the log off.
const AA = Boolean(process.env.BENCH_AA);
// The gateways measured one after the other in alternating order (the earlier method), not at once.
const SEQUENTIAL = Boolean(process.env.BENCH_SEQUENTIAL);
const FULL_ROWS = Boolean(process.env.BENCH_FULL_ROWS);
// Extra node flags for the gateways (profiling): BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'.
const NODE_ARGS = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
const INTERNAL_KEY = 'bench-internal-key-0123456789abcdef012345'; // what harness.mjs gives the server
const DAY_MS = 86_400_000;
const HOSTS = 500;
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'BR'];
const gatewayDir = join(serverDir, '..', 'gateway');

async function trpc(base, path, input) {
  const r = await fetch(`${base}/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INTERNAL_KEY}` },
    body: JSON.stringify({ json: input }),
  });
  const body = await r.json();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(body).slice(0, 500)}`);
  return body.result.data.json;
}

/** Host i of HOSTS, skewed as real traffic is (a few hosts take most connections). */
const hostOf = () => `host-${Math.floor(HOSTS * Math.random() ** 3)}.example.com:443`;

/** n records of the account that started in [from, to). */
function batchOf(n, account, from, to) {
  const records = [];
  let billed = 0;
  for (let i = 0; i < n; i++) {
    const startedAt = from + Math.floor(Math.random() * (to - from));
    const failed = Math.random() < 0.05;
    const up = failed ? 0 : 200 + Math.floor(Math.random() * 2000);
    const down = failed ? 0 : 1000 + Math.floor(Math.random() * 60_000);
    billed += up + down;
    records.push({
      id: randomUUID(),
      startedAt,
      endedAt: startedAt + 50 + Math.floor(Math.random() * 5000),
      protocol: i % 3 === 0 ? 'http' : i % 3 === 1 ? 'connect' : 'socks5',
      target: hostOf(),
      proxyUserId: account.proxyUserId,
      proxyAccountId: account.proxyAccountId,
      country: COUNTRIES[i % COUNTRIES.length],
      state: '',
      city: '',
      session: i % 4 === 0 ? 'rotating' : `S${(i % 1000).toString(36).toUpperCase().padStart(7, '0')}`,
      bytesUp: up,
      bytesDown: down,
      billedBytes: up + down,
      outcome: failed ? 'target_unreachable' : 'ok',
      reason: failed ? 'connect ECONNREFUSED' : '',
      exitIp: '',
    });
  }
  return { records, billed };
}

/**
 * Records as gateways send them: compact rows naming their sessions (gatewayLogRow, gatewayLogSession).
 * With BENCH_FULL_ROWS=1, rows of every field's value in CONNECTION_ROW_FIELDS' order (batchOf's), as earlier gateways did.
 */
function compactRows(records) {
  const keys = new Map();
  const logSessions = [];
  const logRows = records.map((r) => {
    const fields = [r.proxyUserId, r.proxyAccountId, r.country, r.state, r.city, r.session];
    const id = fields.join('\0');
    let key = keys.get(id);
    if (key === undefined) {
      keys.set(id, (key = keys.size + 1));
      logSessions.push([key, ...fields, 0]);
    }
    return [r.startedAt, r.endedAt - r.startedAt, r.protocol, r.target, key, r.bytesUp, r.bytesDown, r.outcome, r.reason, r.exitIp];
  });
  return { logSessions, logRows };
}

/** 1. RECORDS records through gateway.reserveLease + gateway.report, WRITERS gateways at once. */
async function writeRecords(base, account) {
  const now = Date.now();
  // The oldest day but one the log keeps (30 days): a run across midnight UTC moves the kept window
  // by a day, and records of a day already pruned are not stored (one run here lost 1.2 % so).
  const oldest = (Math.floor(now / DAY_MS) - 28) * DAY_MS;
  let next = 0;
  let written = 0;
  const writer = async (w) => {
    const gatewayId = `bench-writer-${w}`;
    let seq = 0;
    for (;;) {
      const n = Math.min(BATCH, RECORDS - next);
      if (n <= 0) return;
      next += n;
      const { records, billed } = batchOf(n, account, oldest, now);
      const lease = await trpc(base, 'gateway.reserveLease', { gatewayId, proxyAccountId: account.proxyAccountId, bytes: billed });
      if (!lease.leaseId) throw new Error(`no lease: ${JSON.stringify(lease)}`);
      const down = records.reduce((s, r) => s + r.bytesDown, 0);
      const r = await trpc(base, 'gateway.report', {
        gatewayId,
        seq: ++seq,
        items: [{ leaseId: lease.leaseId, bytesUp: billed - down, bytesDown: down, sessions: n, release: true }],
        ...(FULL_ROWS ? { rows: records.map((r) => Object.values(r)) } : compactRows(records)),
      });
      if (!r.applied) throw new Error('report not applied');
      written += n;
    }
  };
  // Records are made between reports as a gateway makes them over time; only the calls are timed.
  const t0 = performance.now();
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  const secs = (performance.now() - t0) / 1000;
  return { written, secs };
}

const basic = (user, pass) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function readHead(s) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n\r\n')) {
        s.off('data', onData);
        resolve(buf);
      }
    };
    s.on('data', onData);
    s.once('error', reject);
  });
}

/** CONNECT tunnels opened and closed one after another for `seconds`, 20 at a time: tunnels/s. */
async function tunnelRate(port, target, auth, seconds) {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const one = async () => {
    while (performance.now() < end) {
      const s = connect({ host: '127.0.0.1', port });
      s.write(`CONNECT 127.0.0.1:${target} HTTP/1.1\r\nHost: 127.0.0.1:${target}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
      const head = await readHead(s);
      if (!head.startsWith('HTTP/1.1 200')) throw new Error(`CONNECT refused: ${head.split('\r\n')[0]}`);
      await new Promise((r) => {
        s.once('close', r);
        s.end();
      });
      n += 1;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 20 }, one));
  return { rate: n / ((performance.now() - t0) / 1000), ops: n };
}

async function httpRate(port, target, auth, seconds) {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 50,
    duration: seconds,
    requests: [{ method: 'GET', path: `http://127.0.0.1:${target}/1k`, headers: { host: `127.0.0.1:${target}`, 'proxy-authorization': auth } }],
  });
  if (r.non2xx || r.errors) throw new Error(`HTTP: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rate: r.requests.average, ops: r.requests.total };
}

/** The gateway's relay process: the child its launcher started (or the launcher itself). */
function relayPid(pid) {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return kids.length ? Number(kids[0]) : pid;
  } catch {
    return pid;
  }
}

/** A measurement's rate, and the gateway's own CPU microseconds per operation (what other load on the machine moves far less). */
async function measured(pid, serverPid, run) {
  const cpu0 = cpuSeconds(pid);
  // The server and PostgreSQL store the records on the same two cores: their CPU is printed beside.
  const rest0 = cpuSeconds(serverPid) + postgresCpuSeconds();
  const { rate, ops } = await run();
  return { rate, cpuUs: ((cpuSeconds(pid) - cpu0) * 1e6) / ops, restUs: ((cpuSeconds(serverPid) + postgresCpuSeconds() - rest0) * 1e6) / ops };
}

/**
 * Both gateways loaded at once, on the same cores, for the same seconds: each one's rate and CPU
 * per operation. This machine's speed swung by up to half between consecutive 3 s measurements
 * (a gateway's CPU per request moving inversely), so measurements taken one after the other compared
 * the moments as much as the gateways; measured together, both see the same moments. The server's
 * and PostgreSQL's CPU is counted per operation of the log-on gateway (the off one stores nothing).
 */
async function pairMeasured(gws, serverPid, run) {
  const cpu0 = { on: cpuSeconds(gws.on.pid), off: cpuSeconds(gws.off.pid) };
  const rest0 = cpuSeconds(serverPid) + postgresCpuSeconds();
  const [on, off] = await Promise.all([run(gws.on.port), run(gws.off.port)]);
  const rest = cpuSeconds(serverPid) + postgresCpuSeconds() - rest0;
  const of = (k, r) => ({ rate: r.rate, cpuUs: ((cpuSeconds(gws[k].pid) - cpu0[k]) * 1e6) / r.ops });
  return { on: { ...of('on', on), restUs: (rest * 1e6) / on.ops }, off: { ...of('off', off), restUs: Number.NaN } };
}

/** Sets the CPUs every thread of a process may run on (Linux taskset); false where it cannot. */
function pin(pid, cpus) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL's processes (the postmaster among them, so that new backends inherit its CPUs). */
function postgresPids() {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d) && commOf(d) === 'postgres');
}

/**
 * The gateway side (this process with the load it makes, and every process it starts from here)
 * on the first cores, the server and PostgreSQL on the last: the section's figures are the
 * gateway's own. Answers a function that gives every process its CPUs back.
 */
function splitCores(server) {
  const n = availableParallelism();
  if (n < 2) return { note: 'one core: not split', restore: () => undefined };
  const all = `0-${n - 1}`;
  const gatewaySide = n === 2 ? '0' : `0-${n - 2}`;
  const serverSide = String(n - 1);
  const servers = [server.pid, ...postgresPids()];
  if (!pin(process.pid, gatewaySide) || !servers.every((pid) => pin(pid, serverSide))) {
    for (const pid of [process.pid, ...servers]) pin(pid, all);
    return { note: 'taskset failed: not split', restore: () => undefined };
  }
  return {
    note: `gateways, load and target on CPU ${gatewaySide}; server and PostgreSQL on CPU ${serverSide}`,
    restore: () => {
      for (const pid of [process.pid, server.pid, ...postgresPids()]) pin(pid, all);
    },
  };
}

/** 2. Two built gateways on the server, the log on and off, measured in alternating rounds. */
async function gatewayOnOff(server, user) {
  const children = [];
  const cores = splitCores(server);
  console.log(`  ${cores.note}${AA ? '; BENCH_AA: both gateways with the log off' : ''}`);
  try {
    const targetProc = fork(join(gatewayDir, 'bench', 'target.mjs'), ['511'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    children.push(targetProc);
    const { tcp, http } = await new Promise((r) => targetProc.once('message', r));
    const start = async (log) => {
      const port = await freePort();
      const env = {
        ...process.env,
        NODE_ENV: 'development',
        PORT: new URL(server.base).port,
        GATEWAY_SERVER_URL: server.base,
        GATEWAY_PORT: String(port),
        // No entry ports (20000-20099 by default): processes of other tests may hold them.
        GATEWAY_ENTRY_PORTS: 'off',
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_ALLOW_PRIVATE: '1',
        GATEWAY_ID: `bench-log-${log ? 'on' : 'off'}`,
        GATEWAY_STATE_DIR: join(server.dataDir, `gateway-${log ? 'on' : 'off'}`),
        GATEWAY_METRICS_PORT: 'off',
        GATEWAY_CONNECTION_LOG: log && !AA ? '1' : '0',
        INTERNAL_API_KEY: INTERNAL_KEY,
        DATA_DIR: server.dataDir,
        LOG_LEVEL: 'warn',
      };
      const proc = spawn(process.execPath, [...NODE_ARGS, join(gatewayDir, 'dist', 'main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(proc);
      await waitFor(
        `the gateway (log ${log ? 'on' : 'off'})`,
        () =>
          new Promise((r) => {
            const s = connect({ host: '127.0.0.1', port });
            s.once('connect', () => {
              s.destroy();
              r(true);
            });
            s.once('error', () => r(false));
          }),
      );
      return { port, pid: relayPid(proc.pid) };
    };
    const gws = { on: await start(true), off: await start(false) };
    const auth = basic(`${user.proxyUserId}_US_60_BENCH001`, user.proxyPassword);
    // Warm both (authorisation cached, first leases held).
    for (const g of Object.values(gws)) await httpRate(g.port, http, auth, 1);
    const rows = { http: { on: [], off: [] }, connect: { on: [], off: [] } };
    const kinds = { http: (port) => httpRate(port, http, auth, SECONDS), connect: (port) => tunnelRate(port, tcp, auth, SECONDS) };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, run] of Object.entries(kinds)) {
        if (SEQUENTIAL) {
          const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
          for (const k of order) rows[kind][k].push(await measured(gws[k].pid, server.pid, () => run(gws[k].port)));
        } else {
          const pair = await pairMeasured(gws, server.pid, run);
          for (const k of ['on', 'off']) rows[kind][k].push(pair[k]);
        }
      }
    }
    return rows;
  } finally {
    for (const c of children.reverse()) {
      if (c.exitCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
    cores.restore();
  }
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** CPU seconds of PostgreSQL's processes so far (all of them: this benchmark is their main user). */
function postgresCpuSeconds() {
  let total = 0;
  for (const pid of postgresPids()) {
    try {
      total += cpuSeconds(pid);
    } catch {
      // gone
    }
  }
  return total;
}

function commOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (times, q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);

/** Pages after the first, each by the previous page's cursor: p50/p95/p99 of one page. */
async function cursorPages(base, path, headers, count) {
  const times = [];
  let cursor = null;
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = await fetch(`${base}${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
    const body = await r.json();
    times.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  times.sort((a, b) => a - b);
  return { pages: times.length, p50: pct(times, 0.5), p95: pct(times, 0.95), p99: pct(times, 0.99) };
}

await onScratchDatabase({ postgres, adminUrl: ADMIN_URL, prefix: 'bench_connections', script: 'bench:connections' }, async ({ server, sql }) => {
  const { cookie, user } = await signUp(server);
  // Credit for the whole run (usage is billed as reported): written directly, this database is thrown away.
  await sql`UPDATE users SET credits_bytes = credits_bytes + ${String(1n << 50n)} WHERE id = ${user.id}`;
  const { account } = await trpc(server.base, 'gateway.authorize', { proxyUserId: user.proxyUserId, password: user.proxyPassword });
  if (!account.ok) throw new Error(account.message);

  console.log(`\n# ${RECORDS} records through gateway.report: ${WRITERS} gateways at once, ${BATCH} records a report (database: postgresql)`);
  const cpu0 = { server: cpuSeconds(server.pid), pg: postgresCpuSeconds() };
  const w = await writeRecords(server.base, { proxyAccountId: account.proxyAccountId, proxyUserId: user.proxyUserId });
  const cpu = { server: cpuSeconds(server.pid) - cpu0.server, pg: postgresCpuSeconds() - cpu0.pg };
  const [{ stored }] = await sql`SELECT count(*)::int AS stored FROM connection_log WHERE user_id = ${user.id}`;
  const [{ billed }] = await sql`SELECT coalesce(sum(billed_bytes), 0)::text AS billed FROM connection_log WHERE user_id = ${user.id}`;
  const [{ usage }] = await sql`SELECT total_usage_bytes::text AS usage FROM users WHERE id = ${user.id}`;
  console.log(
    `  ${w.written} records in ${w.secs.toFixed(1)} s: ${Math.round(w.written / w.secs)} records/s sustained (target >= 20000); ` +
      `${stored} stored, billed bytes in the log ${billed} = the user's usage ${usage}: ${billed === usage ? 'yes' : 'NO'}`,
  );
  // The machine may be shared: CPU time per record is what the insert path itself costs.
  console.log(
    `  CPU: server ${cpu.server.toFixed(1)} s (${Math.round(w.written / cpu.server)} records per server CPU second), ` +
      `PostgreSQL ${cpu.pg.toFixed(1)} s (${Math.round(w.written / cpu.pg)} records per PostgreSQL CPU second); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  await sql`ANALYZE connection_log`.catch(() => undefined);

  console.log(
    `\n# the gateway with the log on and off: ${ROUNDS} rounds, ${SECONDS} s each, ${SEQUENTIAL ? 'one gateway after the other, alternating' : 'both gateways at once'}; medians`,
  );
  const g = await gatewayOnOff(server, user);
  const table = [];
  for (const [row, unit] of [
    ['http', 'HTTP forward requests/s (50 keep-alive connections, 1 KiB answers)'],
    ['connect', 'CONNECT tunnels/s (opened and closed, 20 at a time)'],
  ]) {
    const on = median(g[row].on.map((m) => m.rate));
    const off = median(g[row].off.map((m) => m.rate));
    const cpuOn = median(g[row].on.map((m) => m.cpuUs));
    const cpuOff = median(g[row].off.map((m) => m.cpuUs));
    // The median of the rounds' own ratios (the spread shows the noise): the machine's speed drifts
    // over minutes, and measured one after the other a round's two figures are seconds apart.
    const ratios = g[row].on.map((m, i) => m.rate / g[row].off[i].rate).sort((a, b) => a - b);
    const pct = (x) => `${(x * 100).toFixed(1)} %`;
    table.push({
      measure: unit,
      'log on': Math.round(on),
      'log off': Math.round(off),
      'on / off (median of rounds)': pct(median(ratios)),
      'rounds min-max': `${pct(ratios[0])}-${pct(ratios.at(-1))}`,
      'gateway CPU µs/op on': cpuOn.toFixed(0),
      off: cpuOff.toFixed(0),
      'CPU on / off': `${((cpuOn / cpuOff) * 100).toFixed(1)} %`,
      'server+PostgreSQL CPU µs/op on': median(g[row].on.map((m) => m.restUs)).toFixed(0),
      'off ': SEQUENTIAL ? median(g[row].off.map((m) => m.restUs)).toFixed(0) : '-',
    });
  }
  console.table(table);

  const monthAgo = new Date(Date.now() - 30 * DAY_MS).toISOString();
  console.log(`\n# the user's month (${stored} connections) read back, one request at a time`);
  const headers = { cookie };
  const q = [];
  const first = await timeRequests(server.base, `/api/connections?from=${monthAgo}&pageSize=100`, headers, REQUESTS);
  q.push({ request: 'first page (100, newest first)', answers: first.body.connections.length, 'p50 ms': first.p50, 'p95 ms': first.p95, 'p99 ms': first.p99 });
  const pages = await cursorPages(server.base, `/api/connections?from=${monthAgo}&pageSize=100`, headers, REQUESTS);
  q.push({ request: `next pages by cursor (${pages.pages})`, answers: 100, 'p50 ms': pages.p50, 'p95 ms': pages.p95, 'p99 ms': pages.p99 });
  for (const host of ['host-0.example.com', 'host-100.example.com', 'host-499.example.com']) {
    const t = await timeRequests(server.base, `/api/connections?from=${monthAgo}&pageSize=100&target=${host}`, headers, REQUESTS);
    q.push({ request: `first page for target ${host}`, answers: t.body.connections.length, 'p50 ms': t.p50, 'p95 ms': t.p95, 'p99 ms': t.p99 });
  }
  const usage30 = await timeRequests(server.base, `/api/usage?granularity=day&from=${monthAgo}`, headers, Math.min(REQUESTS, 20));
  q.push({
    request: '/api/usage month by day with byTarget',
    answers: usage30.body.byTarget?.length ?? 0,
    'p50 ms': usage30.p50,
    'p95 ms': usage30.p95,
    'p99 ms': usage30.p99,
  });
  console.table(q);
});
