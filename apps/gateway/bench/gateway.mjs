// pnpm bench:gateway — our gateway (CONNECT and SOCKS5, authenticated and metered) against a direct
// connection and against proxy-chain (npm), on one loopback target, on this machine.
// Server, gateway and proxy-chain each run in their own process (as built: apps/*/dist/main.js);
// this process runs the clients and the target. Prints throughput, setup latency and memory.
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const MiB = 1024 * 1024;
const TRANSFER_BYTES = Number(process.env.BENCH_BYTES ?? 256 * MiB);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const HANDSHAKES = Number(process.env.BENCH_HANDSHAKES ?? 2000);
const TUNNELS = Number(process.env.BENCH_TUNNELS ?? 5000);

const children = [];
const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-bench-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Never leave a server, gateway or proxy-chain behind, whatever ends this process.
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

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// ---- the loopback target: "D<n>\n" sends n bytes, "U<n>\n" reads n bytes and answers "K" ----------
const payload = Buffer.alloc(64 * 1024, 0x61);
const target = createServer({ noDelay: true }, (s) => {
  s.on('error', () => {});
  let head = Buffer.alloc(0);
  const onData = (d) => {
    head = Buffer.concat([head, d]);
    const nl = head.indexOf(10);
    if (nl < 0) return;
    s.off('data', onData);
    const line = head.toString('latin1', 0, nl);
    const rest = head.length - nl - 1;
    const n = Number(line.slice(1));
    if (line[0] === 'D') {
      let left = n;
      const pump = () => {
        while (left > 0) {
          const c = left >= payload.length ? payload : payload.subarray(0, left);
          left -= c.length;
          if (!s.write(c)) return void s.once('drain', pump);
        }
      };
      pump();
    } else if (line[0] === 'U') {
      let got = rest;
      const done = () => s.write('K');
      if (got >= n) return done();
      s.on('data', (c) => {
        got += c.length;
        if (got >= n) done();
      });
    }
  };
  s.on('data', onData);
});

// ---- clients ----------------------------------------------------------------------------------
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
  });
}

function readHead(socket) {
  return new Promise((res, rej) => {
    let buf = Buffer.alloc(0);
    const onData = (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', rej);
      if (buf.length > end + 4) socket.unshift(buf.subarray(end + 4));
      res(buf.toString('latin1', 0, end));
    };
    socket.on('data', onData);
    socket.once('error', rej);
  });
}

function tcp(port) {
  return new Promise((res, rej) => {
    const s = connect({ host: '127.0.0.1', port, noDelay: true });
    s.once('connect', () => {
      s.off('error', rej);
      res(s);
    });
    s.once('error', rej);
  });
}

const openers = {
  direct: (t) => tcp(t),
  connect: (proxyPort, user, pass) => async (t) => {
    const s = await tcp(proxyPort);
    s.write(
      `CONNECT 127.0.0.1:${t} HTTP/1.1\r\nHost: 127.0.0.1:${t}\r\nProxy-Authorization: Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}\r\n\r\n`,
    );
    const head = await readHead(s);
    if (!/^HTTP\/1\.[01] 200/.test(head)) throw new Error(`CONNECT refused: ${head.split('\r\n')[0]}`);
    return s;
  },
  socks: (proxyPort, user, pass) => async (t) => {
    const s = await tcp(proxyPort);
    s.write(Buffer.from([5, 1, 2]));
    const m = await readBytes(s, 2);
    if (m[1] !== 2) throw new Error('socks: method refused');
    const u = Buffer.from(user);
    const p = Buffer.from(pass);
    s.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
    const a = await readBytes(s, 2);
    if (a[1] !== 0) throw new Error('socks: auth refused');
    s.write(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, t >> 8, t & 0xff]));
    const r = await readBytes(s, 10);
    if (r[1] !== 0) throw new Error(`socks: connect refused (${r[1]})`);
    return s;
  },
};

async function download(open, t) {
  const s = await open(t);
  const t0 = process.hrtime.bigint();
  s.write(`D${TRANSFER_BYTES}\n`);
  let got = 0;
  await new Promise((res, rej) => {
    s.on('data', (d) => {
      got += d.length;
      if (got >= TRANSFER_BYTES) res();
    });
    s.on('error', rej);
    s.on('close', () => (got >= TRANSFER_BYTES ? res() : rej(new Error(`closed after ${got} bytes`))));
  });
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
  await ack;
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  s.destroy();
  return TRANSFER_BYTES / 1e6 / secs;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Connection set-up times (ms), n handshakes one after another. */
async function setupLatency(open, t, n) {
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

// ---- set-up: server, a user with credit, gateway, proxy-chain -----------------------------------
async function main() {
  const [port, gwPort, pcPort] = [await freePort(), await freePort(), await freePort()];
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
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_SERVER_URL: base,
    GATEWAY_ALLOW_PRIVATE: '1',
    GATEWAY_ID: 'bench',
    DATABASE_URL: '',
  };
  // The gateway starts its relay process with tuned allocator and heap settings (apps/gateway/src/
  // main.ts); proxy-chain gets exactly the same, so the comparison is of the proxies alone.
  const tuned = { ...env, MALLOC_TOP_PAD_: String(64 * MiB), MALLOC_TRIM_THRESHOLD_: String(256 * MiB) };
  const tunedFlags = ['--initial-old-space-size=64'];
  const server = spawn(process.execPath, [join(root, 'apps/server/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(server);
  await waitFor('server', async () => (await fetch(`${base}/health`)).ok);

  // A user, through the product's own API: register, verify from the outbox, sign in, redeem a code.
  const email = `bench-${Date.now()}@example.com`;
  const json = { 'content-type': 'application/json', origin: base };
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
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ creditsGB: 100000, quantity: 1, expiresAt: null }),
  }).then((r) => r.json());
  const redeemed = await fetch(`${base}/auth/redeem-code`, {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ code: codes.codes[0].code }),
  });
  if (!redeemed.ok) throw new Error(`redeem failed: ${await redeemed.text()}`);
  const username = `${user.proxyUserId}_US_60_BENCH001`;
  const password = user.proxyPassword;

  // Extra node flags for both proxies (profiling): BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p'.
  const profile = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const stop = async (proc) => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  const startGateway = async () => {
    const proc = spawn(process.execPath, [...profile, join(root, 'apps/gateway/dist/main.js')], {
      env,
      stdio: ['ignore', process.env.BENCH_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'],
    });
    children.push(proc);
    await waitFor('gateway', () => canConnect(gwPort));
    return { proc, pid: relayPid(proc.pid) };
  };
  const startChain = async () => {
    const proc = fork(join(here, 'proxy-chain-server.mjs'), [String(pcPort), username, password], {
      env: tuned,
      execArgv: [...tunedFlags, ...profile],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(proc);
    await new Promise((r) => proc.once('message', r));
    return { proc, pid: proc.pid };
  };

  target.listen(0, '127.0.0.1');
  await new Promise((r) => target.once('listening', r));
  const t = target.address().port;

  const configs = [
    { name: 'direct', open: openers.direct, start: null },
    { name: 'gateway CONNECT', open: openers.connect(gwPort, username, password), start: startGateway },
    { name: 'gateway SOCKS5', open: openers.socks(gwPort, username, password), start: startGateway },
    { name: 'proxy-chain CONNECT', open: openers.connect(pcPort, username, password), start: startChain },
  ];
  const results = {};
  for (const c of configs) results[c.name] = {};
  console.log(`# ${RUNS} runs of ${TRANSFER_BYTES / MiB} MiB per direction (median), ${HANDSHAKES} handshakes, ${TUNNELS} idle tunnels`);

  // Memory first, each proxy in a fresh process (after a small warm-up), so no earlier phase's
  // heap is reused and counted in anyone's favour.
  for (const c of configs) {
    if (!c.start) continue;
    const p = await c.start();
    for (let i = 0; i < 50; i++) (await c.open(t)).destroy();
    results[c.name].kib = await idleTunnelMemory(c.open, t, p.pid);
    console.log(`  ${c.name.padEnd(20)} ${results[c.name].kib.toFixed(1)} KiB RSS per idle tunnel`);
    await stop(p.proc);
  }

  const gateway = await startGateway();
  const chain = await startChain();
  // Interleaved run by run, the order rotating, so a noisy moment or a warm cache hits all alike.
  const down = Object.fromEntries(configs.map((c) => [c.name, []]));
  const up = Object.fromEntries(configs.map((c) => [c.name, []]));
  const rotated = (r) => configs.map((_, i) => configs[(i + r) % configs.length]);
  for (let run = 0; run < RUNS; run++) {
    for (const c of rotated(run)) {
      down[c.name].push(await download(c.open, t));
      up[c.name].push(await upload(c.open, t));
    }
  }
  for (const c of configs) {
    results[c.name].down = median(down[c.name]);
    results[c.name].up = median(up[c.name]);
    console.log(`  ${c.name.padEnd(20)} download ${results[c.name].down.toFixed(0)} MB/s, upload ${results[c.name].up.toFixed(0)} MB/s`);
  }
  const times = Object.fromEntries(configs.map((c) => [c.name, []]));
  for (const c of configs) for (let i = 0; i < 50; i++) (await c.open(t)).destroy(); // warm-up: auth cached, JIT warm
  const ROUNDS = 10;
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of rotated(round)) times[c.name].push(...(await setupLatency(c.open, t, Math.ceil(HANDSHAKES / ROUNDS))));
  }
  for (const c of configs) {
    results[c.name].latency = { p50: pct(times[c.name], 50), p99: pct(times[c.name], 99) };
    console.log(`  ${c.name.padEnd(20)} setup p50 ${results[c.name].latency.p50.toFixed(3)} ms, p99 ${results[c.name].latency.p99.toFixed(3)} ms`);
  }

  // Graceful stop: the gateway reports and returns its leases; the user's usage shows the metering.
  await stop(gateway.proc);
  await stop(chain.proc);
  const me = await fetch(`${base}/auth/user`, { headers: { cookie } }).then((r) => r.json());

  const f = (v, d = 0) => (v === undefined ? '—' : v.toFixed(d));
  const rows = [
    ['Download, 1 connection (MB/s)', (r) => f(r.down)],
    ['Upload, 1 connection (MB/s)', (r) => f(r.up)],
    ['Setup latency p50 (ms)', (r) => f(r.latency?.p50, 3)],
    ['Setup latency p99 (ms)', (r) => f(r.latency?.p99, 3)],
    [`Memory per idle tunnel at ${TUNNELS} (KiB RSS)`, (r) => f(r.kib, 1)],
  ];
  const names = configs.map((c) => c.name);
  console.log('');
  console.log(`| | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|`);
  for (const [label, get] of rows) console.log(`| ${label} | ${names.map((n) => get(results[n])).join(' | ')} |`);
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
  target.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
