// pnpm bench:gateway — our gateway (HTTP forward, CONNECT and SOCKS5, authenticated and metered)
// against proxy-chain (npm) and a direct connection, in one run, on one loopback target, on this
// machine. Server, gateway, proxy-chain and the target each run in their own process (as built:
// apps/*/dist/main.js); this process runs the clients. Each figure is the median of BENCH_ROUNDS
// rounds, the order alternating (gateway first, then proxy-chain first), printed beside
// proxy-chain's and direct's with the ratio and the target it is held to.
//
// Knobs: BENCH_ROUNDS (5), BENCH_BYTES (1 GiB a transfer), BENCH_HANDSHAKES (400 a round),
// BENCH_HTTP_SECONDS (3), BENCH_HTTP_CONNECTIONS (50), BENCH_CONCURRENT (100 tunnels),
// BENCH_CONCURRENT_BYTES (4 MiB each), BENCH_TUNNELS (10,000 idle tunnels; fewer when the open-file
// limit does not allow two sockets each), BENCH_COLD_USERS (1,000), BENCH_NODE_ARGS (profiling),
// BENCH_VERBOSE (each step, and each round's set-up times p50/p90/p99/max), BENCH_ROTATING_SECONDS (5 per subject and round),
// BENCH_ROTATING_CONCURRENCY (32), BENCH_TAIL (where each rotating subject's slowest 1 % fell in time), BENCH_BURST (2,000 connections at once), BENCH_BURST_LINES (50),
// BENCH_ROWS (which rows to run, comma-separated: download,upload,setup,http,concurrent,cold,memory,rotating,burst;
// all by default). Every row selected still runs for both proxies and direct in every round.
// BENCH_NATIVE=1 adds tinyproxy (C; Debian's package) with proxy-chain's fixed login to the rotating
// row: what a proxy that only relays, without Node's sockets, costs per short connection here.
// BENCH_BASELINE=<another checkout, built> adds that checkout's gateway as a third proxy in the same
// rounds (rows 'baseline ...'): before/after figures of a change from one run, under the same load.
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const MiB = 1024 * 1024;
const num = (name, def) => Number(process.env[name] ?? def);
const ROUNDS = num('BENCH_ROUNDS', 5);
// A transfer lasts about a second: 128 MiB (a tenth of a second) moved by 2x between rounds.
const TRANSFER_BYTES = num('BENCH_BYTES', 1024 * MiB);
const HANDSHAKES = num('BENCH_HANDSHAKES', 400);
const HTTP_SECONDS = num('BENCH_HTTP_SECONDS', 3);
const HTTP_CONNECTIONS = num('BENCH_HTTP_CONNECTIONS', 50);
const CONCURRENT = num('BENCH_CONCURRENT', 100);
const CONCURRENT_BYTES = num('BENCH_CONCURRENT_BYTES', 4 * MiB);
const COLD_USERS = num('BENCH_COLD_USERS', 1000);
const ROTATING_SECONDS = num('BENCH_ROTATING_SECONDS', 5);
const ROTATING_CONCURRENCY = num('BENCH_ROTATING_CONCURRENCY', 32);
const BURST = num('BENCH_BURST', 2000);
const BURST_LINES = num('BENCH_BURST_LINES', 50);
const TAIL = Boolean(process.env.BENCH_TAIL);
const NATIVE = Boolean(process.env.BENCH_NATIVE);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
const ALL_ROWS = ['download', 'upload', 'setup', 'http', 'concurrent', 'cold', 'memory', 'rotating', 'burst'];
const ROWS = new Set(process.env.BENCH_ROWS ? process.env.BENCH_ROWS.split(',').map((r) => r.trim()) : ALL_ROWS);
for (const r of ROWS) if (!ALL_ROWS.includes(r)) throw new Error(`BENCH_ROWS: unknown row ${r} (rows: ${ALL_ROWS.join(',')})`);

/** The open-file limit of this process (and so of its children): a proxied idle tunnel holds two sockets. */
function openFileLimit() {
  const m = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : 1024;
}
const FD_LIMIT = openFileLimit();
const TUNNELS = Math.min(num('BENCH_TUNNELS', 10_000), Math.floor((FD_LIMIT - 200) / 2 / 100) * 100);

/** The gateway's accept queue (gateway-parts.ts; gateway.ts before the metered-flow split, so BENCH_BASELINE may be older), given to the target and proxy-chain too: a burst is dropped nowhere. */
const LISTEN_BACKLOG = (() => {
  for (const file of ['gateway-parts.ts', 'gateway.ts']) {
    let text;
    try {
      text = readFileSync(join(root, 'apps/gateway/src', file), 'utf8');
    } catch {
      continue;
    }
    const m = /export const LISTEN_BACKLOG = ([\d_]+);/.exec(text);
    if (m) return m[1].replaceAll('_', '');
  }
  throw new Error('LISTEN_BACKLOG not found in apps/gateway/src/gateway-parts.ts or gateway.ts');
})();

const children = [];
const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-bench-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Never leave a server, gateway, proxy-chain or target behind, whatever ends this process.
const killAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', () => {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));
process.stdout.on('error', () => process.exit(1));

function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function waitFor(what, fn, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await fn()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function canConnect(port) {
  return new Promise((res) => {
    const s = connect({ host: '127.0.0.1', port });
    s.on('connect', () => {
      s.destroy();
      res(true);
    });
    s.on('error', () => res(false));
  });
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

/** CPU time (user + system) a process has used, in seconds. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/**
 * Waits until a process (the server) is done with what it was given: a report interval (the
 * gateway's last report of a run goes out at its next tick), then until its CPU stays under a tenth
 * of a core for two 300 ms samples (at most 15 s).
 */
async function serverSettled(pid) {
  await sleep(2200);
  const until = Date.now() + 15_000;
  for (let quiet = 0; quiet < 2 && Date.now() < until;) {
    const c0 = cpuSeconds(pid);
    await sleep(300);
    quiet = (cpuSeconds(pid) - c0) / 0.3 < 0.1 ? quiet + 1 : 0;
  }
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// ---- clients ----------------------------------------------------------------------------------
const payload = Buffer.alloc(64 * 1024, 0x61);

function readBytes(socket, n) {
  return new Promise((res, rej) => {
    let buf = Buffer.alloc(0);
    const onData = (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      if (buf.length >= n) {
        socket.off('data', onData);
        socket.off('error', rej);
        if (buf.length > n) socket.unshift(buf.subarray(n));
        res(buf.subarray(0, n));
      }
    };
    socket.on('data', onData);
    socket.once('error', rej);
    socket.once('close', () => rej(new Error('closed before an answer')));
  });
}

function readHead(socket) {
  return new Promise((res, rej) => {
    let buf = Buffer.alloc(0);
    const onClose = () => rej(new Error('closed before an answer'));
    const onData = (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', rej);
      socket.off('close', onClose);
      if (buf.length > end + 4) socket.unshift(buf.subarray(end + 4));
      res(buf.toString('latin1', 0, end));
    };
    socket.on('data', onData);
    socket.once('error', rej);
    socket.once('close', onClose);
  });
}

function tcp(port, from) {
  return new Promise((res, rej) => {
    const s = connect({ host: '127.0.0.1', port, noDelay: true, ...(from ? { localAddress: from } : {}) });
    s.once('connect', () => {
      s.off('error', rej);
      res(s);
    });
    s.once('error', rej);
  });
}

const basic = (user, pass) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

/**
 * SOCKS5's three exchanges (greeting, login, CONNECT request) with one 'data' listener, each answer
 * read as soon as its bytes are in, as a scraper's SOCKS client reads them: a promise and a set of
 * listeners per exchange cost this process (which shares the cores with the proxies) about a
 * fifth more CPU per connection than the CONNECT client's one read.
 */
function socksExchanges(s, greeting, login, request) {
  return new Promise((res, rej) => {
    let buf = null;
    let step = 0;
    const done = (err) => {
      s.off('data', onData);
      s.off('error', done);
      s.off('close', onClose);
      if (err) return rej(err);
      if (buf.length) s.unshift(buf);
      res(s);
    };
    const onClose = () => done(new Error('closed before an answer'));
    const onData = (d) => {
      buf = buf ? Buffer.concat([buf, d]) : d;
      const need = step === 2 ? 10 : 2;
      if (buf.length < need) return;
      const a = buf;
      buf = buf.subarray(need);
      if (step === 0) {
        if (a[1] !== 2) return done(new Error('socks: method refused'));
        s.write(login);
      } else if (step === 1) {
        if (a[1] !== 0) return done(new Error('socks: auth refused'));
        s.write(request);
      } else {
        return done(a[1] === 0 ? undefined : new Error(`socks: connect refused (${a[1]})`));
      }
      step += 1;
    };
    s.on('data', onData);
    s.on('error', done);
    s.on('close', onClose);
    s.write(greeting);
  });
}

/** Memoized by the target port: a client builds its request once, not per connection. */
const perPort = (make) => {
  const made = new Map();
  return (t) => made.get(t) ?? made.set(t, make(t)).get(t);
};

const openers = {
  direct: () => (t) => tcp(t),
  connect: (proxyPort, user, pass, from) => {
    const auth = basic(user, pass);
    const request = perPort((t) => `CONNECT 127.0.0.1:${t} HTTP/1.1\r\nHost: 127.0.0.1:${t}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
    return async (t) => {
      const s = await tcp(proxyPort, from);
      s.write(request(t));
      const head = await readHead(s);
      if (!/^HTTP\/1\.[01] 200/.test(head)) throw new Error(`CONNECT refused: ${head.split('\r\n')[0]}`);
      return s;
    };
  },
  socks: (proxyPort, user, pass) => {
    const greeting = Buffer.from([5, 1, 2]);
    const [u, p] = [Buffer.from(user), Buffer.from(pass)];
    const login = Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]);
    const request = perPort((t) => Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, t >> 8, t & 0xff]));
    return async (t) => socksExchanges(await tcp(proxyPort), greeting, login, request(t));
  },
};

function receive(s, n) {
  let got = 0;
  return new Promise((res, rej) => {
    s.on('data', (d) => {
      got += d.length;
      if (got >= n) res();
    });
    s.on('error', rej);
    s.on('close', () => (got >= n ? res() : rej(new Error(`closed after ${got} bytes`))));
  });
}

async function download(open, t) {
  const s = await open(t);
  const t0 = process.hrtime.bigint();
  s.write(`D${TRANSFER_BYTES}\n`);
  await receive(s, TRANSFER_BYTES);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  s.destroy();
  return TRANSFER_BYTES / 1e6 / secs;
}

async function upload(open, t) {
  const s = await open(t);
  const t0 = process.hrtime.bigint();
  s.write(`U${TRANSFER_BYTES}\n`);
  const ack = readBytes(s, 1);
  let left = TRANSFER_BYTES;
  await new Promise((res) => {
    const pump = () => {
      while (left > 0) {
        const c = left >= payload.length ? payload : payload.subarray(0, left);
        left -= c.length;
        if (!s.write(c)) return void s.once('drain', pump);
      }
      res();
    };
    pump();
  });
  await Promise.race([ack, new Promise((_, rej) => s.once('close', () => rej(new Error(`upload closed after ${TRANSFER_BYTES - left} bytes sent`))))]);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  s.destroy();
  return TRANSFER_BYTES / 1e6 / secs;
}

/** CONCURRENT tunnels opened first, then all downloading at once: aggregate MB/s. */
async function concurrent(open, t) {
  const sockets = await Promise.all(Array.from({ length: CONCURRENT }, () => open(t)));
  const t0 = process.hrtime.bigint();
  await Promise.all(
    sockets.map((s) => {
      s.write(`D${CONCURRENT_BYTES}\n`);
      return receive(s, CONCURRENT_BYTES);
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  for (const s of sockets) s.destroy();
  return (CONCURRENT * CONCURRENT_BYTES) / 1e6 / secs;
}

/** Requests a second for 1 KiB responses over HTTP_CONNECTIONS keep-alive connections (absolute URIs through a proxy). */
async function httpRate(port, httpTarget, auth) {
  const headers = { host: `127.0.0.1:${httpTarget}` };
  if (auth) headers['proxy-authorization'] = auth;
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: HTTP_CONNECTIONS,
    duration: HTTP_SECONDS,
    requests: [{ method: 'GET', path: auth ? `http://127.0.0.1:${httpTarget}/1k` : '/1k', headers }],
  });
  if (r.non2xx || r.errors) throw new Error(`HTTP row: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r.requests.average;
}

const step = (what) => process.env.BENCH_VERBOSE && console.error(`  .. ${what}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Connection set-up times (ms), n handshakes one after another. */
async function setupTimes(open, t, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const s = await open(t);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    s.destroy();
  }
  return times;
}

async function idleTunnelMemory(open, t, pid) {
  await sleep(500);
  const before = rssKiB(pid);
  const sockets = [];
  for (let i = 0; i < TUNNELS; i += 250) {
    const batch = await Promise.all(Array.from({ length: Math.min(250, TUNNELS - i) }, () => open(t)));
    sockets.push(...batch);
  }
  await sleep(1000);
  const after = rssKiB(pid);
  for (const s of sockets) s.destroy();
  await sleep(1000);
  return (after - before) / TUNNELS;
}

/**
 * One short connection as a rotating customer's scraper makes it: a tunnel to the HTTP target, one
 * request answered with 1 KiB, close. Answers its time (ms, tunnel included) and the bytes it moved
 * through the tunnel each way (what the gateway must bill).
 */
async function shortConnection(open, httpTarget, request) {
  const t0 = process.hrtime.bigint();
  const s = await open(httpTarget);
  const opened = process.hrtime.bigint();
  s.write(request);
  const down = await readResponse(s);
  s.destroy();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, tunnelMs: Number(opened - t0) / 1e6, up: request.length, down };
}

/** One whole HTTP response (head and Content-Length body) in one 'data' listener; answers its length in bytes. */
function readResponse(socket) {
  return new Promise((res, rej) => {
    let buf = Buffer.alloc(0);
    let total = 0;
    socket.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      if (!total) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
        if (!/^HTTP\/1\.1 200 /.test(head) || !length) return rej(new Error(`answered ${head.split('\r\n')[0]}`));
        total = end + 4 + length;
      }
      if (buf.length >= total) res(total);
    });
    socket.once('error', rej);
    socket.once('close', () => rej(new Error(`closed after ${buf.length} bytes of the answer`)));
  });
}

/**
 * BENCH_TAIL: where a subject's slowest 1 % (above its p99, `cut`) fell, by 100 ms window of its
 * run, and the time from the tunnel being up to the whole answer (p50, p99). Clusters of about
 * ROTATING_CONCURRENCY in one window are moments when every client waited at once (the cores taken
 * by something else), not slow connections.
 */
function printTail(label, cut, times, tunnels, endedAt) {
  const windows = new Map();
  for (let i = 0; i < times.length; i++) {
    if (times[i] <= cut) continue;
    const w = Math.floor(endedAt[i] / 100);
    windows.set(w, (windows.get(w) ?? 0) + 1);
  }
  const after = times.map((ms, i) => ms - tunnels[i]);
  const list = [...windows].sort(([a], [b]) => a - b).map(([w, n]) => `${(w / 10).toFixed(1)}s:${n}`);
  console.error(
    `  ${label} tail: p99 ${cut.toFixed(1)} ms (after the tunnel p50 ${pct(after, 50).toFixed(2)}, p99 ${pct(after, 99).toFixed(1)}); the slowest 1 % by 100 ms window: ${list.join(' ')}`,
  );
}

/** ROTATING_CONCURRENCY clients making short connections for ROTATING_SECONDS: connections/s, p50, p99 and the bytes moved. */
async function rotatingRate(open, httpTarget, label) {
  const request = Buffer.from(`GET /1k HTTP/1.1\r\nHost: 127.0.0.1:${httpTarget}\r\n\r\n`, 'latin1');
  const times = [];
  const tunnels = [];
  /** When each connection ended (ms from the start), for BENCH_TAIL. */
  const endedAt = [];
  let up = 0;
  let down = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + ROTATING_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: ROTATING_CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const c = await shortConnection(open, httpTarget, request);
        times.push(c.ms);
        tunnels.push(c.tunnelMs);
        if (TAIL) endedAt.push(Number(process.hrtime.bigint() - t0) / 1e6);
        up += c.up;
        down += c.down;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const p99 = pct(times, 99);
  if (TAIL) printTail(label, p99, times, tunnels, endedAt);
  return {
    rate: times.length / secs,
    p50: pct(times, 50),
    p99,
    tunnelP50: pct(tunnels, 50),
    tunnelP99: pct(tunnels, 99),
    count: times.length,
    bytes: up + down,
  };
}

/**
 * BURST connections opened at once, line i of `opens` for connection i: the time until the last is
 * established (ms), how many were refused (with the first refusal), and the proxy's RSS (MiB) while
 * they are all open.
 */
async function burstOfLines(opens, t, pid) {
  const t0 = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      opens[i % opens.length](t).then(
        (s) => ({ s, ms: Number(process.hrtime.bigint() - t0) / 1e6 }),
        (err) => ({ err }),
      ),
    ),
  );
  const open = results.filter((r) => r.s);
  const refused = results.filter((r) => r.err);
  await sleep(200);
  const rssMiB = rssKiB(pid) / 1024;
  for (const r of open) r.s.destroy();
  await sleep(500);
  return { lastMs: Math.max(...open.map((r) => r.ms)), refused: refused.length, why: refused[0]?.err.message, rssMiB };
}

// ---- set-up: target, server, a user with credit, gateway, proxy-chain ---------------------------
async function main() {
  const [port, gwPort, pcPort, basePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const tinyPort = NATIVE ? await freePort() : null;
  const key = randomBytes(24).toString('base64url');
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    INTERNAL_API_KEY: key,
    LOG_LEVEL: 'warn',
    GATEWAY_PORT: String(gwPort),
    // No entry ports (20000-20099 by default): processes of other tests may hold them.
    GATEWAY_ENTRY_PORTS: 'off',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_SERVER_URL: base,
    GATEWAY_ALLOW_PRIVATE: '1',
    GATEWAY_ID: 'bench',
    GATEWAY_METRICS_PORT: 'off',
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  };
  // The gateway starts its relay process with tuned allocator and heap settings (apps/gateway/src/
  // main.ts); proxy-chain gets exactly the same, so the comparison is of the proxies alone.
  const tuned = { ...env, MALLOC_TOP_PAD_: String(64 * MiB), MALLOC_TRIM_THRESHOLD_: String(256 * MiB) };
  const tunedFlags = ['--initial-old-space-size=64'];

  const targetProc = fork(join(here, 'target.mjs'), [LISTEN_BACKLOG], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(targetProc);
  const { tcp: t, http: httpTarget } = await new Promise((r) => targetProc.once('message', r));

  const serverArgs = process.env.BENCH_SERVER_NODE_ARGS ? process.env.BENCH_SERVER_NODE_ARGS.split(' ') : [];
  const server = spawn(process.execPath, [...serverArgs, join(root, 'apps/server/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(server);
  // Its migrations take 40 s and more on a loaded 2-core machine: wait longer than for the others.
  await waitFor('server', async () => (await fetch(`${base}/health`)).ok, 300_000);

  const json = { 'content-type': 'application/json', origin: base };
  const internal = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  // A user, through the product's own API: register, verify from the outbox, sign in, redeem a code.
  const fundedUser = async (tag) => {
    const email = `bench-${tag}-${Date.now()}@example.com`;
    await fetch(`${base}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'Bench12345', name: 'Bench' }) });
    let token;
    await waitFor('verification mail', () => {
      for (const f of readdirSync(join(dataDir, 'mail'))) {
        const m = JSON.parse(readFileSync(join(dataDir, 'mail', f), 'utf8'));
        if (m.to === email) token = /token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1];
      }
      return Boolean(token);
    });
    await fetch(`${base}/auth/verify-email?token=${token}`);
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'Bench12345' }) });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const { user } = await login.json();
    const codes = await fetch(`${base}/admin/codes/create`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify({ creditsGB: 100000, quantity: 1, expiresAt: null }),
    }).then((r) => r.json());
    const redeemed = await fetch(`${base}/auth/redeem-code`, {
      method: 'POST',
      headers: { ...json, cookie },
      body: JSON.stringify({ code: codes.codes[0].code }),
    });
    if (!redeemed.ok) throw new Error(`redeem failed: ${await redeemed.text()}`);
    return { user, cookie };
  };
  const { user, cookie } = await fundedUser('main');
  // The rotating row's customer: a user of its own, so its usage and its log are that row's alone.
  const rotUser = ROWS.has('rotating') ? await fundedUser('rotating') : null;
  const benchStart = new Date(Date.now() - 60_000).toISOString();
  const username = `${user.proxyUserId}_US_60_BENCH001`;
  const password = user.proxyPassword;

  /** COLD_USERS proxy accounts nobody has used yet (one shop batch: each its own credentials and leases). */
  const coldAccounts = async () => {
    const r = await fetch(`${base}/trpc/credits.createBatch`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify({ json: { accounts: COLD_USERS, creditsGB: 1000, usageType: 'shop_proxy_regular' } }),
    });
    if (!r.ok) throw new Error(`createBatch: ${r.status} ${await r.text()}`);
    return (await r.json()).result.data.json.accounts;
  };

  // Extra node flags for both proxies (profiling): BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'.
  const profile = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const stop = async (proc) => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  const startGateway = async (baseline = false) => {
    const from = baseline ? BASELINE : root;
    const gwEnv = baseline
      ? { ...env, GATEWAY_PORT: String(basePort), GATEWAY_ID: 'bench-baseline', GATEWAY_STATE_DIR: join(dataDir, 'gateway-baseline') }
      : env;
    const proc = spawn(process.execPath, [...profile, join(from, 'apps/gateway/dist/main.js')], {
      env: gwEnv,
      stdio: ['ignore', process.env.BENCH_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'],
    });
    children.push(proc);
    await waitFor('gateway', () => canConnect(baseline ? basePort : gwPort));
    return { proc, pid: relayPid(proc.pid) };
  };
  const startChain = async () => {
    const proc = fork(join(here, 'proxy-chain-server.mjs'), [String(pcPort), username, password, LISTEN_BACKLOG], {
      env: tuned,
      execArgv: [...tunedFlags, ...profile],
      stdio: ['ignore', process.env.BENCH_NODE_ARGS ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    });
    children.push(proc);
    await new Promise((r) => proc.once('message', r));
    return { proc, pid: proc.pid };
  };

  /** BENCH_NATIVE: tinyproxy with proxy-chain's login, in the foreground. */
  const startTinyproxy = async () => {
    const conf = join(dataDir, 'tinyproxy.conf');
    writeFileSync(
      conf,
      [
        `Port ${tinyPort}`,
        'Listen 127.0.0.1',
        'Timeout 60',
        'MaxClients 4096',
        'LogLevel Critical',
        'DisableViaHeader Yes',
        `BasicAuth ${username} ${password}`,
      ].join('\n') + '\n',
    );
    const proc = spawn('tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(proc);
    proc.once('error', (err) => {
      console.error(`BENCH_NATIVE: ${err.message} (apt-get install tinyproxy)`);
      process.exit(1);
    });
    await waitFor('tinyproxy', () => canConnect(tinyPort));
    return { tinyproxy: proc.pid };
  };

  const auth = basic(username, password);
  // proxy-chain serves HTTP forward and CONNECT; it has no SOCKS5, so SOCKS5 is held to its CONNECT.
  const configs = {
    gwConnect: { name: 'gateway CONNECT', open: openers.connect(gwPort, username, password), port: gwPort },
    gwSocks: { name: 'gateway SOCKS5', open: openers.socks(gwPort, username, password), port: gwPort },
    chain: { name: 'proxy-chain CONNECT', open: openers.connect(pcPort, username, password), port: pcPort },
    direct: { name: 'direct', open: openers.direct(), port: null },
  };
  if (NATIVE) {
    configs.tinyproxy = { name: 'tinyproxy CONNECT', open: openers.connect(tinyPort, username, password), port: tinyPort };
  }
  /** The rotating row's other subjects beside proxy-chain (BENCH_NATIVE). */
  const natives = NATIVE ? ['tinyproxy'] : [];
  if (BASELINE) {
    configs.baseConnect = { name: 'baseline CONNECT', open: openers.connect(basePort, username, password), port: basePort };
    configs.baseSocks = { name: 'baseline SOCKS5', open: openers.socks(basePort, username, password), port: basePort };
  }
  const ours = BASELINE ? ['gwConnect', 'gwSocks', 'baseConnect', 'baseSocks'] : ['gwConnect', 'gwSocks'];
  // The rotating row: our gateways with the rotating user's rotating line (a new exit per
  // connection), proxy-chain with its one pair, direct.
  const rotating = {};
  if (rotUser) {
    const [u, p] = [`${rotUser.user.proxyUserId}_US_0_ROTATE01`, rotUser.user.proxyPassword];
    for (const id of Object.keys(configs)) {
      const c = configs[id];
      rotating[id] = ours.includes(id) ? (id.endsWith('Socks') ? openers.socks : openers.connect)(c.port, u, p) : c.open;
    }
  }
  /** What the rotating user's connections moved through our gateways (the bytes its usage must show) and how many there were. */
  const rotBilled = { connections: 0, bytes: 0 };
  const rotatingRun = async (id) => {
    const r = await rotatingRate(rotating[id], httpTarget, configs[id].name);
    if (ours.includes(id)) {
      rotBilled.connections += r.count;
      rotBilled.bytes += r.bytes;
    }
    return r;
  };
  // The burst row: BURST_LINES lines of the bench user (distinct tokens) through our gateways,
  // proxy-chain's one pair (it checks no more), each CONNECT.
  const burstLines = (port) =>
    Array.from({ length: BURST_LINES }, (_, i) => openers.connect(port, `${user.proxyUserId}_US_0_BRST${String(i).padStart(4, '0')}`, password));
  const bursting = { gwConnect: burstLines(gwPort), chain: [configs.chain.open], ...(BASELINE ? { baseConnect: burstLines(basePort) } : {}) };
  const rotation = (round) => (round % 2 === 0 ? [...ours, 'chain', 'direct'] : ['chain', 'direct', ...[...ours].reverse()]);
  const socks = (id) => id.endsWith('Socks');
  console.log(
    `# ${ROUNDS} rounds (order alternating), ${TRANSFER_BYTES / MiB} MiB a transfer, ${HANDSHAKES} handshakes a round, ` +
      `HTTP ${HTTP_SECONDS} s x ${HTTP_CONNECTIONS} keep-alive connections, ${CONCURRENT} tunnels x ${CONCURRENT_BYTES / MiB} MiB, ` +
      `${TUNNELS} idle tunnels (open-file limit ${FD_LIMIT}), ${COLD_USERS} cold users`,
  );

  // Memory first, each proxy in a fresh process (after a small warm-up), so no earlier phase's
  // heap is reused and counted in anyone's favour.
  const kib = {};
  for (const [id, start] of [['gwConnect', () => startGateway()], ['chain', startChain], ...(BASELINE ? [['baseConnect', () => startGateway(true)]] : [])]) {
    if (!TUNNELS || !ROWS.has('memory')) break;
    const c = configs[id];
    const p = await start();
    for (let i = 0; i < 50; i++) (await c.open(t)).destroy();
    kib[id] = await idleTunnelMemory(c.open, t, p.pid);
    console.log(`  ${c.name.padEnd(20)} ${kib[id].toFixed(1)} KiB RSS per idle tunnel at ${TUNNELS}`);
    await stop(p.proc);
  }

  const gateway = await startGateway();
  const chain = await startChain();
  const nativePids = NATIVE ? await startTinyproxy() : {};
  const baseline = BASELINE ? await startGateway(true) : null;
  const rows = {};
  const add = (row, id, v) => ((rows[row] ??= {})[id] ??= []).push(v);
  // The proxy's own CPU seconds per GiB relayed: a diagnostic that other load on the machine moves
  // far less than MB/s (it is not held to a target).
  const pids = { gwConnect: gateway.pid, gwSocks: gateway.pid, chain: chain.pid, baseConnect: baseline?.pid, baseSocks: baseline?.pid, ...nativePids };
  const transfer = async (row, id, run) => {
    const pid = pids[id];
    const cpu0 = pid ? cpuSeconds(pid) : 0;
    add(row, id, await run());
    if (pid) add(`${row}Cpu`, id, (cpuSeconds(pid) - cpu0) / (TRANSFER_BYTES / 2 ** 30));
  };
  for (const id of Object.keys(configs)) for (let i = 0; i < 50; i++) (await configs[id].open(t)).destroy(); // warm-up: auth cached, JIT warm
  const rotatingNamed = (id) => rotatingRun(id).catch((err) => Promise.reject(new Error(`${configs[id].name} rotating: ${err.message}`)));
  if (rotUser) for (const id of Object.keys(configs)) await rotatingNamed(id); // warm-up of the short-connection path
  step('warm-up');
  if (ROWS.has('http')) for (const http of [gwPort, pcPort, ...(BASELINE ? [basePort] : [])]) await httpRate(http, httpTarget, auth); // warm-up
  // Cold auth cache: accounts the gateway has never seen, all connecting at once, each from an
  // address of its own (one address may only have so many logins waiting: login-limit.ts).
  // `accounts` null: the same burst of connections for the bench user (proxy-chain and direct
  // have no accounts). Answers each connection's setup time (Infinity: refused or timed out).
  const burst = (open, accounts, fromNet) =>
    Promise.all(
      Array.from({ length: COLD_USERS }, async (_, i) => {
        const from = fromNet === undefined ? undefined : `127.${fromNet}.${Math.floor(i / 250)}.${1 + (i % 250)}`;
        const a = accounts?.[i];
        const t0 = process.hrtime.bigint();
        const s = await (a ? openers.connect(open, `${a.proxyUserId}_US_60_COLD0001`, a.proxyPassword, from) : open)(t).catch(() => null);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (!s) return Infinity; // refused or closed (the 15 s handshake deadline): counted as the slowest
        s.destroy();
        return ms;
      }),
    );
  async function coldRound(round, id, port, k) {
    step(`cold (${id})`);
    const accounts = await coldAccounts();
    // Addresses of their own for each round and gateway: 127.<n>.<x>.<y>, n = 2 + 3 round + k.
    const times = await burst(port, accounts, 2 + 3 * round + k);
    add('cold', id, pct(times, 99));
    // The same burst with those accounts now known (cache warm): what the logins add.
    add('coldWarm', id, pct(await burst(port, accounts, 2 + 3 * round + k), 99));
  }
  /** Anchors for the burst: proxy-chain and direct, 1,000 connections at once. */
  async function burstAnchors() {
    for (const id of ['chain', 'direct']) add('coldWarm', id, pct(await burst(configs[id].open, null), 99));
  }

  // The server's and gateways' batch paths are warmed (compiled) by one unmeasured burst, as every
  // other row's paths are by the warm-up above: the row is about a cold cache, not a cold process.
  if (ROWS.has('cold')) {
    for (const [port, k] of [[gwPort, 0], ...(BASELINE ? [[basePort, 1]] : [])]) await burst(port, await coldAccounts(), 1 + k * 100);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = rotation(round);
    for (const id of order) {
      const c = configs[id];
      const named = (p) => p.catch((err) => Promise.reject(new Error(`${c.name}: ${err.message}`)));
      if (ROWS.has('download')) {
        step(`${c.name} download`);
        await transfer('download', id, () => named(download(c.open, t)));
      }
      if (ROWS.has('upload')) {
        step(`${c.name} upload`);
        await transfer('upload', id, () => named(upload(c.open, t)));
      }
    }
    if (ROWS.has('setup')) {
      step('setup');
      for (const id of order) {
        const times = await setupTimes(configs[id].open, t, HANDSHAKES);
        add('setup', id, pct(times, 99));
        if (process.env.BENCH_VERBOSE) {
          const over = times.filter((x) => x > 1.5).length;
          console.error(
            `    ${configs[id].name.padEnd(20)} p50 ${pct(times, 50).toFixed(2)} p90 ${pct(times, 90).toFixed(2)} p99 ${pct(times, 99).toFixed(2)} max ${pct(times, 100).toFixed(2)} ms, ${over} over 1.5 ms`,
          );
        }
      }
    }
    if (ROWS.has('http')) {
      step('http');
      for (const id of order) {
        if (socks(id)) continue;
        add('http', id, await httpRate(id === 'direct' ? httpTarget : configs[id].port, httpTarget, id === 'direct' ? null : auth));
      }
    }
    if (ROWS.has('concurrent')) {
      step('concurrent');
      for (const id of order) if (!socks(id)) add('concurrent', id, await concurrent(configs[id].open, t));
    }
    if (rotUser) {
      step('rotating');
      // Each subject starts with the server done with the reports before it: its storing lags by a
      // report interval, and would otherwise take the cores from whoever comes next. (Each subject's
      // own wait below, for its server CPU, does this for the next one.)
      await serverSettled(server.pid);
      for (const id of order.flatMap((id) => (id === 'chain' ? [id, ...natives] : [id]))) {
        const cpu0 = pids[id] ? cpuSeconds(pids[id]) : 0;
        const serverCpu0 = cpuSeconds(server.pid);
        const clientCpu0 = process.cpuUsage();
        const targetCpu0 = cpuSeconds(targetProc.pid);
        const r = await rotatingNamed(id);
        // The clients' and the target's shares: on a shared machine, CPU they spend is CPU the proxy does not get.
        const client = process.cpuUsage(clientCpu0);
        add('rotClientCpu', id, (client.user + client.system) / r.count);
        add('rotTargetCpu', id, ((cpuSeconds(targetProc.pid) - targetCpu0) / r.count) * 1e6);
        if (pids[id]) add('rotCpu', id, ((cpuSeconds(pids[id]) - cpu0) / r.count) * 1e6);
        // The server's share: the gateway's reports of these connections (leases, usage, log
        // records), until it has stored the last of them.
        await serverSettled(server.pid);
        add('rotServerCpu', id, ((cpuSeconds(server.pid) - serverCpu0) / r.count) * 1e6);
        add('rotRate', id, r.rate);
        add('rotP50', id, r.p50);
        add('rotP99', id, r.p99);
        add('rotTunnelP50', id, r.tunnelP50);
        add('rotTunnelP99', id, r.tunnelP99);
      }
    }
    if (ROWS.has('burst')) {
      step('burst');
      for (const id of order) {
        if (!bursting[id]) continue;
        const b = await burstOfLines(bursting[id], t, pids[id]);
        add('burstLast', id, b.lastMs);
        add('burstRss', id, b.rssMiB);
        add('burstRefused', id, b.refused);
        if (b.refused) console.log(`  ${configs[id].name}: ${b.refused} of ${BURST} refused in the burst (${b.why})`);
      }
    }
    if (ROWS.has('cold')) {
      await coldRound(round, 'gwConnect', gwPort, 0);
      if (BASELINE) await coldRound(round, 'baseConnect', basePort, 1);
      await burstAnchors();
    }
    const r = (row, id, d = 0) => (rows[row]?.[id] ? rows[row][id].at(-1).toFixed(d) : '-');
    console.log(
      `  round ${round + 1} (${order[0] === 'chain' ? 'proxy-chain' : 'gateway'} first): ` +
        `CONNECT down ${r('download', 'gwConnect')}/${r('download', 'chain')}/${r('download', 'direct')} MB/s, ` +
        `up ${r('upload', 'gwConnect')}/${r('upload', 'chain')}/${r('upload', 'direct')}; ` +
        `SOCKS5 down ${r('download', 'gwSocks')} up ${r('upload', 'gwSocks')}; ` +
        `setup p99 ${r('setup', 'gwConnect', 2)}/${r('setup', 'gwSocks', 2)}/${r('setup', 'chain', 2)} ms; ` +
        `HTTP ${r('http', 'gwConnect')}/${r('http', 'chain')}/${r('http', 'direct')} req/s; ` +
        `x${CONCURRENT} ${r('concurrent', 'gwConnect')}/${r('concurrent', 'chain')}/${r('concurrent', 'direct')} MB/s; ` +
        `cold p99 ${r('cold', 'gwConnect', 1)} ms; ` +
        `rotating ${r('rotRate', 'gwConnect')}/${r('rotRate', 'gwSocks')}/${r('rotRate', 'chain')}/${r('rotRate', 'direct')} conn/s, ` +
        `p99 ${r('rotP99', 'gwConnect', 1)}/${r('rotP99', 'gwSocks', 1)}/${r('rotP99', 'chain', 1)} ms; ` +
        `burst of ${BURST} last ${r('burstLast', 'gwConnect')}/${r('burstLast', 'chain')} ms` +
        (BASELINE
          ? `; baseline CONNECT down ${r('download', 'baseConnect')} up ${r('upload', 'baseConnect')}, SOCKS5 down ${r('download', 'baseSocks')} ` +
            `up ${r('upload', 'baseSocks')}, setup p99 ${r('setup', 'baseConnect', 2)}/${r('setup', 'baseSocks', 2)} ms`
          : ''),
    );
  }

  // Graceful stop: the gateway reports and returns its leases; the user's usage shows the metering.
  await stop(gateway.proc);
  await stop(chain.proc);
  if (baseline) await stop(baseline.proc);
  const me = await fetch(`${base}/auth/user`, { headers: { cookie } }).then((r) => r.json());
  // The rotating user's bill and log, as the server holds them once the gateways have reported.
  let rotChecked = null;
  if (rotUser) {
    const rotMe = await fetch(`${base}/auth/user`, { headers: { cookie: rotUser.cookie } }).then((r) => r.json());
    const csv = await fetch(`${base}/api/connections?format=csv&from=${benchStart}`, { headers: { cookie: rotUser.cookie } }).then((r) => r.text());
    const records = csv.split('\n').filter((l) => l.trim()).length - 1;
    rotChecked = { usage: Number(rotMe.user.total_usage_bytes), records };
  }

  const med = (row, id) => median(rows[row][id]);
  const ok = (pass) => (pass ? 'ok' : 'MISS');
  const table = [];
  const line = (label, ours, chainV, directV, unit, d, checks) => {
    const f = (v) => (v === undefined ? '-' : v.toFixed(d));
    const verdicts = checks.map(([what, ratio, target, higher]) => {
      const pass = higher ? ratio >= target : ratio <= target;
      return `${ratio.toFixed(2)}x ${what} (target ${higher ? '>=' : '<='} ${target}x) ${ok(pass)}`;
    });
    console.log(`  ${label.padEnd(44)} ${f(ours).padStart(8)} ${unit} | proxy-chain ${f(chainV)} | direct ${f(directV)} | ${verdicts.join(' | ')}`);
    table.push([label, f(ours), f(chainV), f(directV), verdicts.join('; ')]);
  };
  console.log('');
  for (const [label, id] of [
    ['CONNECT', 'gwConnect'],
    ['SOCKS5', 'gwSocks'],
    ...(BASELINE
      ? [
          ['baseline CONNECT', 'baseConnect'],
          ['baseline SOCKS5', 'baseSocks'],
        ]
      : []),
  ]) {
    for (const row of ['download', 'upload']) {
      if (!rows[row]) continue;
      const v = med(row, id);
      const c = med(row, 'chain');
      const d = med(row, 'direct');
      line(`${label} ${row}, 1 connection`, v, c, d, 'MB/s', 0, [
        ['proxy-chain', v / c, 1.1, true],
        ['direct', v / d, 0.75, true],
      ]);
      const cpu = (x) => median(rows[`${row}Cpu`][x]).toFixed(2);
      console.log(`  ${''.padEnd(44)} CPU per GiB relayed: ${cpu(id)} s | proxy-chain ${cpu('chain')} s (median of rounds; diagnostic)`);
    }
  }
  for (const id of rows.setup ? ours : []) {
    const ours = rows.setup[id];
    const theirs = rows.setup.chain;
    const worst = Math.max(...ours.map((v, i) => v / theirs[i]));
    const wins = ours.filter((v, i) => v <= theirs[i]).length;
    console.log(
      `  ${`${configs[id].name} setup p99 by round`.padEnd(44)} ${ours.map((v) => v.toFixed(2)).join(' ')} ms | proxy-chain ${theirs.map((v) => v.toFixed(2)).join(' ')} | ` +
        `${wins}/${ours.length} rounds at or below proxy-chain (target: every round) ${ok(wins === ours.length)}`,
    );
    table.push([
      `${configs[id].name} setup p99 (ms, median of rounds)`,
      median(ours).toFixed(2),
      median(theirs).toFixed(2),
      median(rows.setup.direct).toFixed(2),
      `${wins}/${ours.length} rounds <= proxy-chain (worst ${worst.toFixed(2)}x) ${ok(wins === ours.length)}`,
    ]);
  }
  for (const [who, id] of [['', 'gwConnect'], ...(BASELINE ? [['baseline ', 'baseConnect']] : [])]) {
    if (rows.http) {
      const h = med('http', id);
      line(`${who}HTTP forward, 1 KiB, ${HTTP_CONNECTIONS} keep-alive connections`, h, med('http', 'chain'), med('http', 'direct'), 'req/s', 0, [
        ['proxy-chain', h / med('http', 'chain'), 1.5, true],
      ]);
    }
    if (rows.concurrent) {
      const cc = med('concurrent', id);
      line(`${who}${CONCURRENT} concurrent CONNECT tunnels, aggregate`, cc, med('concurrent', 'chain'), med('concurrent', 'direct'), 'MB/s', 0, [
        ['proxy-chain', cc / med('concurrent', 'chain'), 1.1, true],
      ]);
    }
    if (kib[id] !== undefined) {
      const pass = kib[id] <= 10;
      console.log(
        `  ${`${who}idle tunnels at ${TUNNELS}`.padEnd(44)} ${kib[id].toFixed(1).padStart(8)} KiB RSS each | proxy-chain ${kib.chain.toFixed(1)} | target <= 10 KiB ${ok(pass)}`,
      );
      table.push([`${who}memory per idle tunnel at ${TUNNELS} (KiB RSS)`, kib[id].toFixed(1), kib.chain.toFixed(1), '-', `target <= 10 KiB ${ok(pass)}`]);
    }
  }
  for (const [who, id] of [['', 'gwConnect'], ...(BASELINE ? [['baseline ', 'baseConnect']] : [])]) {
    const cold = rows.cold?.[id];
    if (!cold) continue;
    const coldPass = Math.max(...cold) < 100;
    const by = (x) => rows.coldWarm[x].map((v) => v.toFixed(1)).join(' ');
    console.log(
      `  ${`${who}${COLD_USERS} cold users at once, setup p99 by round`.padEnd(44)} ${cold.map((v) => v.toFixed(1)).join(' ')} ms | target < 100 ms ${ok(coldPass)}`,
    );
    console.log(
      `  ${`${''.padEnd(who.length)}the same burst, accounts known (warm)`.padEnd(44)} ${by(id)} ms | proxy-chain ${by('chain')} | direct ${by('direct')} (anchors: one user, warm)`,
    );
    table.push([
      `${who}${COLD_USERS} users at once, cold auth cache: setup p99 (ms, worst round)`,
      Math.max(...cold).toFixed(1),
      '-',
      '-',
      `target < 100 ms ${ok(coldPass)}`,
    ]);
    table.push([
      `${who}${COLD_USERS} connections at once, warm: setup p99 (ms, worst round)`,
      Math.max(...rows.coldWarm[id]).toFixed(1),
      Math.max(...rows.coldWarm.chain).toFixed(1),
      Math.max(...rows.coldWarm.direct).toFixed(1),
      'anchor for the row above',
    ]);
  }

  if (rows.rotRate) {
    const c = (row, id) => med(row, id);
    for (const id of ours) {
      const rate = c('rotRate', id);
      const p99 = c('rotP99', id);
      const byRound = rows.rotRate[id].map((v, i) => (v / rows.rotRate.chain[i]).toFixed(2)).join(' ');
      const label = `${configs[id].name} rotating, ${ROTATING_CONCURRENCY} at once`;
      console.log(
        `  ${label.padEnd(44)} ${rate.toFixed(0).padStart(8)} conn/s p50 ${c('rotP50', id).toFixed(1)} p99 ${p99.toFixed(1)} ms | ` +
          `proxy-chain ${c('rotRate', 'chain').toFixed(0)} p50 ${c('rotP50', 'chain').toFixed(1)} p99 ${c('rotP99', 'chain').toFixed(1)} | ` +
          `direct ${c('rotRate', 'direct').toFixed(0)} p50 ${c('rotP50', 'direct').toFixed(1)} p99 ${c('rotP99', 'direct').toFixed(1)} | ` +
          `${(rate / c('rotRate', 'chain')).toFixed(2)}x conn/s (target >= 1.0x, aim 1.2x) ${ok(rate >= c('rotRate', 'chain'))}, ` +
          `${(p99 / c('rotP99', 'chain')).toFixed(2)}x p99 (target <= 1.0x) ${ok(p99 <= c('rotP99', 'chain'))}; by round ${byRound}`,
      );
      console.log(
        `  ${''.padEnd(44)} CPU per connection: ${c('rotCpu', id).toFixed(0)} µs, and the server's ${c('rotServerCpu', id).toFixed(0)} µs | proxy-chain ${c('rotCpu', 'chain').toFixed(0)} µs, the server's in its window ${c('rotServerCpu', 'chain').toFixed(0)} µs (the process's whole CPU in its window over its connections, background work included; median of rounds; diagnostic)`,
      );
      console.log(
        `  ${''.padEnd(44)} and the clients' ${c('rotClientCpu', id).toFixed(0)} µs, the target's ${c('rotTargetCpu', id).toFixed(0)} µs | proxy-chain's clients ${c('rotClientCpu', 'chain').toFixed(0)} µs, target ${c('rotTargetCpu', 'chain').toFixed(0)} µs | direct's clients ${c('rotClientCpu', 'direct').toFixed(0)} µs, target ${c('rotTargetCpu', 'direct').toFixed(0)} µs (what shares the cores)`,
      );
      console.log(
        `  ${''.padEnd(44)} until the tunnel is up p50 ${c('rotTunnelP50', id).toFixed(1)} p99 ${c('rotTunnelP99', id).toFixed(1)} ms | proxy-chain p50 ${c('rotTunnelP50', 'chain').toFixed(1)} p99 ${c('rotTunnelP99', 'chain').toFixed(1)} | direct (TCP only) p50 ${c('rotTunnelP50', 'direct').toFixed(1)} p99 ${c('rotTunnelP99', 'direct').toFixed(1)}`,
      );
      table.push([
        `${label}: connections/s, p50 / p99 ms`,
        `${rate.toFixed(0)}, ${c('rotP50', id).toFixed(1)} / ${p99.toFixed(1)}`,
        `${c('rotRate', 'chain').toFixed(0)}, ${c('rotP50', 'chain').toFixed(1)} / ${c('rotP99', 'chain').toFixed(1)}`,
        `${c('rotRate', 'direct').toFixed(0)}, ${c('rotP50', 'direct').toFixed(1)} / ${c('rotP99', 'direct').toFixed(1)}`,
        `${(rate / c('rotRate', 'chain')).toFixed(2)}x conn/s ${ok(rate >= c('rotRate', 'chain'))}; ${(p99 / c('rotP99', 'chain')).toFixed(2)}x p99 ${ok(p99 <= c('rotP99', 'chain'))}`,
      ]);
    }
    for (const id of natives) {
      const label = `${configs[id].name} rotating, ${ROTATING_CONCURRENCY} at once`;
      const rate = c('rotRate', id);
      const figures = `${rate.toFixed(0)}, ${c('rotP50', id).toFixed(1)} / ${c('rotP99', id).toFixed(1)}`;
      const vsChain = `${(rate / c('rotRate', 'chain')).toFixed(2)}x proxy-chain; our CONNECT ${(c('rotRate', 'gwConnect') / rate).toFixed(2)}x it`;
      console.log(
        `  ${label.padEnd(44)} ${rate.toFixed(0).padStart(8)} conn/s p50 ${c('rotP50', id).toFixed(1)} p99 ${c('rotP99', id).toFixed(1)} ms, ` +
          `CPU per connection ${c('rotCpu', id).toFixed(0)} µs, clients ${c('rotClientCpu', id).toFixed(0)} µs | ${vsChain}, ` +
          `SOCKS5 ${(c('rotRate', 'gwSocks') / rate).toFixed(2)}x (reference, not a target)`,
      );
      table.push([`${label}: connections/s, p50 / p99 ms (reference)`, figures, '-', '-', vsChain]);
    }
    const billed = rotChecked.usage === rotBilled.bytes;
    const logged = rotChecked.records === rotBilled.connections;
    console.log(
      `  ${'rotating user: billed, logged'.padEnd(44)} usage ${rotChecked.usage} B for ${rotBilled.bytes} B moved ${ok(billed)}; ` +
        `${rotChecked.records} log records for ${rotBilled.connections} connections ${ok(logged)}`,
    );
    table.push([
      'rotating user: usage = bytes moved, one log record per connection',
      `${rotChecked.usage} B, ${rotChecked.records} records`,
      '-',
      '-',
      `${rotBilled.bytes} B, ${rotBilled.connections} connections ${ok(billed && logged)}`,
    ]);
  }
  for (const id of rows.burstLast ? Object.keys(bursting).filter((x) => x !== 'chain') : []) {
    const refused = Math.max(...rows.burstRefused[id]);
    const label = `${configs[id].name} burst: ${BURST} at once, ${BURST_LINES} lines`;
    const last = med('burstLast', id);
    console.log(
      `  ${label.padEnd(44)} ${last.toFixed(0).padStart(8)} ms to the last, RSS ${med('burstRss', id).toFixed(0)} MiB after | ` +
        `proxy-chain ${med('burstLast', 'chain').toFixed(0)} ms, ${med('burstRss', 'chain').toFixed(0)} MiB | refused (worst round) ${refused} ${ok(refused === 0)}`,
    );
    table.push([
      `${label}: ms to the last established, RSS MiB after`,
      `${last.toFixed(0)}, ${med('burstRss', id).toFixed(0)}`,
      `${med('burstLast', 'chain').toFixed(0)}, ${med('burstRss', 'chain').toFixed(0)}`,
      '-',
      `${refused} refused ${ok(refused === 0)}`,
    ]);
  }

  console.log('');
  console.log('| row | gateway | proxy-chain | direct | ratio, target |');
  console.log('|---|---:|---:|---:|---|');
  for (const r of table) console.log(`| ${r.join(' | ')} |`);
  console.log('');
  console.log(`Metered by the gateway and reported to the server: ${(me.user.total_usage_bytes / 1e9).toFixed(2)} GB of total usage for the bench user.`);
}

let code = 0;
try {
  await main();
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await sleep(500);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
