// `pnpm start`'s launcher, with real processes: a child killed outright is started again while the
// other keeps serving; killing the launcher outright takes every child with it, at any moment of
// their start-up too, and a new launcher started at once comes up on the same ports. Linux only
// (the process tree is read from /proc).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const serverEntry = join(root, 'apps/server/dist/main.js');
const gatewayEntry = join(root, 'apps/gateway/dist/main.js');
const LAUNCHER = 'apps/server/scripts/start-all.mjs';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

/** Whether something may listen on the port (nothing holds it any more). */
async function portFree(port: number): Promise<boolean> {
  const s = createServer();
  const ok = await new Promise<boolean>((r) => {
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => r(true));
  });
  if (ok) await new Promise((r) => s.close(r));
  return ok;
}

interface Proc {
  pid: number;
  ppid: number;
  cmd: string[];
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      out.push({ pid: Number(name), ppid: Number(ppid), cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0') });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/**
 * Whether one of our processes (the launcher, the server's or the gateway's entry) runs under this pid. The pid
 * alone is not enough: pids wrap at 32,768 here, and a CI run starts so many processes that a pid
 * of ours was soon another program's (this test then saw a server "still running" after it exited).
 */
function alive(pid: number): boolean {
  return processes().some((p) => p.pid === pid && p.cmd.some((arg) => arg === serverEntry || arg === gatewayEntry || arg.endsWith(LAUNCHER)));
}

/**
 * Every server, gateway and relay process started for `dataDir`, whoever its parent is now: an
 * orphan's parent is pid 1 (or a subreaper), so only its environment still says whose it is.
 */
function childrenOf(dataDir: string): Proc[] {
  return processes().filter((p) => {
    if (!p.cmd.some((arg) => arg === serverEntry || arg === gatewayEntry)) return false;
    try {
      return readFileSync(`/proc/${p.pid}/environ`, 'utf8').split('\0').includes(`DATA_DIR=${dataDir}`);
    } catch {
      return false;
    }
  });
}

/** The launcher's server, gateway and the gateway's relay, as running now. */
function tree(launcherPid: number) {
  const all = processes();
  const server = all.find((p) => p.ppid === launcherPid && p.cmd.includes(serverEntry));
  const gateway = all.find((p) => p.ppid === launcherPid && p.cmd.includes(gatewayEntry));
  const relay = gateway && all.find((p) => p.ppid === gateway.pid && p.cmd.includes(gatewayEntry));
  return { server: server?.pid, gateway: gateway?.pid, relay: relay?.pid };
}

async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs: number): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function serverAnswers(port: number): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    return r.status === 200;
  } catch {
    return false;
  }
}

/** The gateway's status line for a CONNECT without credentials (407 when it runs). */
function gatewayAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let head = '';
    s.setTimeout(2000, () => s.destroy());
    s.on('connect', () => s.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    s.on('data', (d) => (head += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(head.startsWith('HTTP/1.1 407')));
  });
}

interface Launcher {
  proc: ChildProcess;
  pid: number;
  output(): string;
}

describe('launcher (pnpm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-launcher-'));
  let port = 0;
  let gatewayPort = 0;
  const started: Launcher[] = [];

  function launch(): Launcher {
    // The scripts' environment only: embedded database in the temporary DATA_DIR, no Redis.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gatewayPort),
      // No entry ports (20000-20099 by default): processes of other tests may hold them.
      GATEWAY_ENTRY_PORTS: 'off',
      // Not the default 3002: another gateway on this machine may hold it, and nothing here reads it.
      GATEWAY_METRICS_PORT: 'off',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'warn',
    };
    const proc = spawn(process.execPath, [LAUNCHER], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const l = { proc, pid: proc.pid!, output: () => out };
    started.push(l);
    return l;
  }

  async function ready(l: Launcher) {
    await waitFor('the server', () => serverAnswers(port), 60_000);
    await waitFor('the gateway', () => gatewayAnswers(gatewayPort), 60_000);
    return waitFor(
      'the process tree',
      () => {
        const t = tree(l.pid);
        return t.server && t.gateway && t.relay ? (t as { server: number; gateway: number; relay: number }) : null;
      },
      10_000,
    );
  }

  beforeAll(async () => {
    // `pnpm start` runs the built apps; build them as it does (up to date already when this runs in
    // the crash tests' project, whose setup builds them; this keeps the file runnable on its own).
    await promisify(execFile)('pnpm', ['turbo', 'run', 'build', '--filter=@proxyhub/server', '--filter=@proxyhub/gateway'], { cwd: root });
    port = await freePort();
    gatewayPort = await freePort();
  }, 120_000);

  afterAll(() => {
    // Only what this test started, by pid.
    for (const l of started) {
      const t = tree(l.pid);
      for (const pid of [l.pid, t.server, t.gateway, t.relay]) {
        if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      }
    }
    for (const p of childrenOf(dataDir)) process.kill(p.pid, 'SIGKILL');
  });

  let first: Launcher;
  let pids: { server: number; gateway: number; relay: number };

  it('restarts a relay killed with -9 within 5 s while the server keeps answering', async () => {
    first = launch();
    pids = await ready(first);

    let serverFailures = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        if (!(await serverAnswers(port))) serverFailures += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const killedAt = Date.now();
    process.kill(pids.relay, 'SIGKILL');
    const back = await waitFor(
      'a new relay',
      async () => {
        const t = tree(first.pid);
        return t.relay && t.relay !== pids.relay && (await gatewayAnswers(gatewayPort)) ? t : null;
      },
      15_000,
    );
    const restartMs = Date.now() - killedAt;
    polling = false;
    await poller;
    console.log(`relay killed: gateway answering again after ${restartMs} ms`);
    const killed = pids;
    // The next tests go on from the processes now running, whether or not these checks hold.
    pids = back as typeof pids;

    expect(restartMs).toBeLessThan(5000);
    expect(back.server).toBe(killed.server);
    expect(alive(killed.relay)).toBe(false);
    expect(serverFailures).toBe(0);
    expect(first.output()).toContain('[launcher] gateway exited (1); restarting it in 1 s');
  }, 60_000);

  it('restarts a server killed with -9 and leaves the gateway running', async () => {
    process.kill(pids.server, 'SIGKILL');
    const back = await waitFor(
      'a new server',
      async () => {
        const t = tree(first.pid);
        return t.server && t.server !== pids.server && (await serverAnswers(port)) ? t : null;
      },
      30_000,
    );
    const killed = pids;
    pids = back as typeof pids;
    expect(back.gateway).toBe(killed.gateway);
    expect(back.relay).toBe(killed.relay);
    expect(await gatewayAnswers(gatewayPort)).toBe(true);
  }, 60_000);

  it('does not leave the relay behind when the gateway process is killed with -9', async () => {
    process.kill(pids.gateway, 'SIGKILL');
    const back = await waitFor(
      'a new gateway',
      async () => {
        const t = tree(first.pid);
        return t.relay && t.gateway !== pids.gateway && (await gatewayAnswers(gatewayPort)) ? t : null;
      },
      30_000,
    );
    const killed = pids;
    pids = back as typeof pids;
    expect(alive(killed.relay)).toBe(false);
    expect(back.server).toBe(killed.server);
  }, 60_000);

  it('takes every child along when killed with -9; a new launcher started at once comes up on the same ports', async () => {
    const old = [pids.server, pids.gateway, pids.relay];
    process.kill(first.pid, 'SIGKILL');
    const second = launch();
    const fresh = await ready(second);
    for (const pid of old) expect(alive(pid)).toBe(false);
    expect(old).not.toContain(fresh.server);
    expect(old).not.toContain(fresh.relay);
    expect(second.output()).not.toContain('EADDRINUSE');

    const killedAt = Date.now();
    process.kill(second.pid, 'SIGKILL');
    const children = { server: fresh.server, gateway: fresh.gateway, relay: fresh.relay };
    await waitFor('the children to exit', () => Object.values(children).every((pid) => !alive(pid)), 30_000).catch((e: Error) => {
      const left = Object.entries(children)
        .filter(([, pid]) => alive(pid))
        .map(([name]) => name);
      throw new Error(`${e.message}: still running ${left.join(', ')}; launcher output:\n${second.output().slice(-4000)}`);
    });
    console.log(`launcher killed: its children were gone after ${Date.now() - killedAt} ms`);
    expect(await portFree(port)).toBe(true);
    expect(await portFree(gatewayPort)).toBe(true);

    // Ctrl-C still stops everything in order and ends the launcher cleanly.
    const third = launch();
    const last = await ready(third);
    const exited = new Promise<number | null>((r) => third.proc.once('exit', (code) => r(code)));
    third.proc.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const pid of [last.server, last.gateway, last.relay]) expect(alive(pid)).toBe(false);
    expect(existsSync(join(dataDir, 'launcher.json'))).toBe(false);
  }, 90_000);

  describe('killed during its children’s start-up', () => {
    // A launcher an earlier test left running (one that failed) is stopped first: these cases
    // judge only the launchers they start themselves.
    beforeAll(async () => {
      for (const l of started) if (l.proc.exitCode === null && l.proc.signalCode === null) l.proc.kill('SIGINT');
      await waitFor(
        'earlier launchers to stop',
        () => started.every((l) => l.proc.exitCode !== null || l.proc.signalCode !== null) && childrenOf(dataDir).length === 0,
        60_000,
      );
    }, 90_000);

    // The launcher can die while its children are still loading, migrating or binding their ports: a
    // child that has not yet looked at its parent must still notice it is gone (an orphaned server
    // served for 24 minutes after its launcher was killed during its start-up).
    // Each case's launcher is also the new one started on the ports its predecessor was killed on.
    it.each([
      { when: '0.5 s after start', afterMs: 500 },
      { when: '1.5 s after start', afterMs: 1500 },
      { when: '3 s after start', afterMs: 3000 },
      { when: '6 s after start', afterMs: 6000 },
      { when: 'once running', afterMs: null },
    ])(
      'killed with -9 $when leaves no child alive 15 s later, and the ports free',
      async ({ when, afterMs }) => {
        const l = launch();
        if (afterMs === null) await ready(l);
        else await new Promise((r) => setTimeout(r, afterMs));
        const seen = new Map<number, string>();
        const look = () => {
          const now = childrenOf(dataDir);
          for (const p of now) seen.set(p.pid, p.cmd.includes(serverEntry) ? 'server' : 'gateway');
          return now;
        };
        look();
        // Killed, not ended on its own (as on finding another launcher's children still running).
        expect(l.proc.exitCode).toBe(null);
        const killedAt = Date.now();
        process.kill(l.pid, 'SIGKILL');
        await waitFor('every child to exit', () => look().length === 0, 15_000).catch((e: Error) => {
          const left = look().map((p) => `${seen.get(p.pid)} ${p.pid} (parent ${p.ppid})`);
          throw new Error(`${e.message}: still running ${left.join(', ')}; launcher output:\n${l.output().slice(-4000)}`);
        });
        console.log(`launcher killed ${when}: ${seen.size} children gone after ${Date.now() - killedAt} ms`);
        expect(l.output()).not.toContain('EADDRINUSE');
        expect(await portFree(port)).toBe(true);
        expect(await portFree(gatewayPort)).toBe(true);
      },
      90_000,
    );
  });
});
