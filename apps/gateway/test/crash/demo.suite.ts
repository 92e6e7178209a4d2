// `pnpm demo` as a new user runs it: the built demo script as a real process (it starts the
// launcher, the server and the gateway), its printed lines pasted as they are: the sign-in works and
// has credit, and both proxy lines reach the local target through the gateway. The banner repeats
// until someone signs in. Stopped and started
// again on the same data directory, it is the same user. In this project because it needs the
// built server and gateway (build.setup.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SocksClient } from 'socks';
import { afterEach, describe, expect, it } from 'vitest';
import { BYTES_PER_GB } from '@proxyhub/core';
import { freePort } from './processes';

const REPO = resolve(import.meta.dirname, '../../../..');

interface Demo {
  child: ChildProcess;
  output: () => string;
  signIn: { email: string; password: string };
  web: string;
  admin: string;
  curl: { http: { proxy: string; target: string }; socks: { proxy: string; target: string } };
}

let running: ChildProcess | null = null;
const dataDirs: string[] = [];

async function startDemo(dataDir: string, port: number, gatewayPort: number, args: string[] = []): Promise<Demo> {
  const child = spawn(process.execPath, ['apps/server/dist/demo.js', '--data-dir', dataDir, ...args], {
    cwd: REPO,
    // A new user's shell: no database or mail server of this test run.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_ENTRY_PORTS: 'off',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let output = '';
  for (const s of [child.stdout, child.stderr]) s.on('data', (d: Buffer) => (output += d.toString()));
  const printed = new Promise<void>((resolvePrinted, reject) => {
    const timer = setTimeout(() => reject(new Error(`no demo lines after 120 s:\n${output.slice(-4000)}`)), 120_000);
    child.stdout.on('data', () => {
      if (/curl -x socks5h:\/\/\S+ \S+\n/.test(output)) {
        clearTimeout(timer);
        resolvePrinted();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited (${String(code)}):\n${output.slice(-4000)}`));
    });
  });
  await printed;
  const line = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`no line ${re} in:\n${output}`);
    return m;
  };
  const signIn = line(/Sign in\s+(\S+) \/ (\S+)/);
  const http = line(/curl -x (http:\/\/\S+) (\S+)\n/);
  const socks = line(/curl -x (socks5h:\/\/\S+) (\S+)\n/);
  return {
    child,
    output: () => output,
    signIn: { email: signIn[1]!, password: signIn[2]! },
    web: line(/Web app\s+(\S+)/)[1]!,
    admin: line(/Admin panel\s+(\S+)\s+(\S+ \/ \S+)/)[1]!,
    curl: { http: { proxy: http[1]!, target: http[2]! }, socks: { proxy: socks[1]!, target: socks[2]! } },
  };
}

/** What `curl -x http://user:pass@host:port <target>` does: an absolute-URI GET with Proxy-Authorization. */
function getThroughHttpProxy(proxyUrl: string, target: string): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  const auth = Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64');
  return new Promise((resolveAnswer, reject) => {
    const req = request(
      { host: proxy.hostname, port: Number(proxy.port), path: target, headers: { host: new URL(target).host, 'proxy-authorization': `Basic ${auth}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What `curl -x socks5h://user:pass@host:port <target>` does: SOCKS5 with a username and password, then HTTP. */
async function getThroughSocks(proxyUrl: string, target: string): Promise<string> {
  const proxy = new URL(proxyUrl);
  const t = new URL(target);
  const { socket } = await SocksClient.createConnection({
    proxy: {
      host: proxy.hostname,
      port: Number(proxy.port),
      type: 5,
      userId: decodeURIComponent(proxy.username),
      password: decodeURIComponent(proxy.password),
    },
    command: 'connect',
    destination: { host: t.hostname, port: Number(t.port) },
  });
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  socket.write(`GET ${t.pathname} HTTP/1.1\r\nHost: ${t.host}\r\nConnection: close\r\n\r\n`);
  await once(socket, 'close');
  return answer;
}

async function signInCredits(web: string, email: string, password: string): Promise<{ status: number; credits: bigint }> {
  const res = await fetch(new URL('/auth/login', web), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: web },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json()) as { user?: { credits: number } };
  return { status: res.status, credits: BigInt(body.user?.credits ?? 0) };
}

describe('pnpm demo', () => {
  afterEach(async () => {
    if (running && running.exitCode === null && running.signalCode === null) {
      const gone = once(running, 'exit');
      running.kill('SIGTERM');
      await gone;
    }
    running = null;
    for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('prints lines that work as pasted: sign-in with credit, curl through the gateway over HTTP and SOCKS5', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-demo-'));
    dataDirs.push(dataDir);
    const [port, gatewayPort] = [await freePort(), await freePort()];
    const demo = await startDemo(dataDir, port, gatewayPort, ['--banner-every', '1']);
    expect(demo.web).toBe(`http://localhost:${port}`);
    expect(demo.admin).toBe(`http://localhost:${port}/admin`);
    expect(demo.curl.http.proxy).toMatch(new RegExp(`^http://[a-z0-9]+_US_60_[A-Z0-9]{8}:[A-Za-z0-9]+@localhost:${gatewayPort}$`));
    expect(demo.curl.socks.proxy).toBe(demo.curl.http.proxy.replace(/^http:/, 'socks5h:'));
    expect(demo.curl.http.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const viaHttp = await getThroughHttpProxy(demo.curl.http.proxy, demo.curl.http.target);
    expect(viaHttp).toEqual({ status: 200, body: 'Hello from the ProxyHub demo target: GET / reached through your proxy.\n' });
    const viaSocks = await getThroughSocks(demo.curl.socks.proxy, demo.curl.socks.target);
    expect(viaSocks).toMatch(/^HTTP\/1\.1 200 /);
    expect(viaSocks).toContain('Hello from the ProxyHub demo target: GET / reached through your proxy.');

    // The banner comes again while nobody has signed in (every second here, every minute by default).
    const banners = () => demo.output().split('ProxyHub demo is running').length - 1;
    await expect.poll(banners, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(2);

    // A verified user with credit: the printed sign-in works as it is.
    const first = await signInCredits(demo.web, demo.signIn.email, demo.signIn.password);
    expect(first.status).toBe(200);
    expect(first.credits).toBeGreaterThanOrEqual(BYTES_PER_GB);

    // Once someone has signed in, the banner stops repeating (one already on its way may still land).
    await new Promise((r) => setTimeout(r, 1500));
    const afterSignIn = banners();
    await new Promise((r) => setTimeout(r, 3000));
    expect(banners()).toBe(afterSignIn);

    // Ctrl-C's signal stops the demo and everything it started.
    const exited = once(demo.child, 'exit');
    demo.child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();

    // Again on the same data: the same user and password, still working.
    const again = await startDemo(dataDir, port, gatewayPort);
    expect(again.signIn).toEqual(demo.signIn);
    expect((await getThroughHttpProxy(again.curl.http.proxy, again.curl.http.target)).status).toBe(200);
  });
});
