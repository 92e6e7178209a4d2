/**
 * `pnpm demo`: the product as `pnpm start` runs it (the same launcher, apps/server/scripts/start-all.mjs),
 * with its own data directory (DATA_DIR, default .data/demo, its own embedded database and mail
 * outbox), a small HTTP page on a loopback port for the proxy to reach without internet, and a
 * verified demo user with credit made through the product's own paths: register, the mailed
 * verification link, a top-up code minted with the internal key and redeemed. It prints what to
 * paste (sign-in, admin, curl through the gateway) once a request through the gateway has worked,
 * and again every minute until someone signs in as the demo user (the server's own lines would
 * otherwise scroll it away before anyone reads it).
 *
 * Private egress is on (GATEWAY_ALLOW_PRIVATE=1, so the gateway may reach the loopback page); for
 * that reason both the web app and the gateway listen on 127.0.0.1 only.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildProxyUsername, BYTES_PER_GB, formatGb } from '@proxyhub/core';
import { loadEnv } from '../env';
import { useRepoRoot } from './repo-root';

const DEMO_EMAIL = 'demo@example.com';
const DEMO_NAME = 'Demo User';
/** Topped up to this when the demo user has less than 1 GB left. */
const DEMO_TOP_UP_GB = 5;
const READY_TIMEOUT_MS = 180_000;

useRepoRoot();
const { values: args } = parseArgs({
  // `pnpm <script> -- --flag` passes the `--` along.
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: { 'data-dir': { type: 'string', default: '.data/demo' }, 'banner-every': { type: 'string', default: '60' } },
});
const dataDir = resolve(args['data-dir']);
/** The banner is printed again this often (seconds, `--banner-every`) while nobody else has signed in as the demo user. */
const bannerRepeatMs = Math.max(1, Number(args['banner-every']) || 60) * 1000;
mkdirSync(dataDir, { recursive: true });

/** The demo's sign-in and admin password: generated once per data directory, kept beside its database. */
interface DemoState {
  password: string;
  adminPassword: string;
}
const stateFile = join(dataDir, 'demo.json');
const state: DemoState = existsSync(stateFile)
  ? (JSON.parse(readFileSync(stateFile, 'utf8')) as DemoState)
  : { password: `Demo-${randomBytes(9).toString('base64url')}1a`, adminPassword: randomBytes(12).toString('base64url') };
writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });

// Its own everything: nothing of a developer's .env database, mail server or payment provider.
// PORT and GATEWAY_PORT are taken as set (3000 and 3001 by default).
const demoEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'development',
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  SMTP_URL: '',
  PAYMENT_PROVIDER: 'sandbox',
  GATEWAY_ALLOW_PRIVATE: '1',
  HOST: '127.0.0.1',
  GATEWAY_HOST: '127.0.0.1',
  ADMIN_PASSWORD: state.adminPassword,
};
const env = loadEnv(demoEnv);
const serverUrl = `http://127.0.0.1:${env.PORT}`;
const webUrl = env.publicUrl;

const target = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`Hello from the ProxyHub demo target: ${req.method} ${req.url} reached through your proxy.\n`);
});
target.listen(0, '127.0.0.1');
await once(target, 'listening');
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;

// The IPC channel tells the launcher when this script is gone, however it goes.
const launcher = spawn(process.execPath, [resolve('apps/server/scripts/start-all.mjs')], { env: demoEnv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
let stopping = false;
const launcherExit = once(launcher, 'exit').then(([code]) => {
  if (!stopping) {
    console.error(`[demo] the launcher exited (${String(code)})`);
    target.close();
    process.exit(typeof code === 'number' && code !== 0 ? code : 1);
  }
});
async function stop(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  launcher.kill('SIGTERM');
  await launcherExit;
  target.close();
  process.exit(exitCode);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop());

async function until<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = READY_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await attempt();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`[demo] timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The demo's browser: JSON calls to our own origin with the session cookie it was given. */
let cookie = '';
async function call<T>(method: string, path: string, body?: unknown, bearer?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, serverUrl), {
    method,
    headers: {
      origin: webUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : cookie ? { cookie } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const set = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  if (set) cookie = set.split(';')[0]!;
  return { status: res.status, body: (await res.json()) as T };
}

/** The verification links mailed to the demo address, oldest first (the development outbox in DATA_DIR/mail). */
function verificationTokens(): string[] {
  const dir = join(dataDir, 'mail');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { to: string; text: string })
    .filter((m) => m.to === DEMO_EMAIL)
    .flatMap((m) => /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1] ?? []);
}

interface DemoUser {
  id: string;
  proxyUserId: string;
  proxyPassword: string;
  credits: number;
}
type LoginAnswer = { success: boolean; requiresVerification?: boolean; user?: DemoUser; error?: string };

/**
 * Signs the demo user in; on the first run registers it and follows the mailed verification link
 * (waiting for the mail, not retrying the sign-in: failed sign-ins count toward the lockout).
 */
async function signIn(): Promise<DemoUser> {
  const login = () => call<LoginAnswer>('POST', '/auth/login', { email: DEMO_EMAIL, password: state.password });
  const first = await login();
  if (first.body.user) return first.body.user;
  const mailed = verificationTokens().length;
  if (first.body.requiresVerification) await call('POST', '/auth/resend-verification', { email: DEMO_EMAIL });
  else await call('POST', '/auth/register', { email: DEMO_EMAIL, password: state.password, name: DEMO_NAME });
  const token = await until(
    `the verification mail (if ${DEMO_EMAIL} exists with another password, delete ${dataDir})`,
    async () => {
      const tokens = verificationTokens();
      return tokens.length > mailed ? tokens.at(-1) : undefined;
    },
    30_000,
  );
  const verified = await call<{ success: boolean; error?: string }>('GET', `/auth/verify-email?token=${token}`);
  if (!verified.body.success) throw new Error(`[demo] verification failed: ${verified.body.error}`);
  const r = await login();
  if (!r.body.user) throw new Error(`[demo] cannot sign in as ${DEMO_EMAIL}: ${r.body.error ?? r.status}`);
  return r.body.user;
}

/** A code minted with the internal key (as the shop bot does) and redeemed by the demo user. */
async function topUp(): Promise<void> {
  const minted = await call<{ codes: Array<{ code: string }> }>(
    'POST',
    '/admin/codes/create',
    { creditsGB: DEMO_TOP_UP_GB, quantity: 1, expiresAt: null },
    env.internalApiKey,
  );
  const code = minted.body.codes?.[0]?.code;
  if (!code) throw new Error(`[demo] could not mint a top-up code (${minted.status})`);
  const redeemed = await call<{ success: boolean; error?: string }>('POST', '/auth/redeem-code', { code });
  if (!redeemed.body.success) throw new Error(`[demo] could not redeem the top-up code: ${redeemed.body.error}`);
}

/** One GET of the target through the gateway, as curl -x does it: the body, or undefined. */
function throughGateway(username: string, password: string): Promise<string | undefined> {
  return new Promise((resolveBody, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: env.GATEWAY_PORT,
        path: targetUrl,
        headers: { host: new URL(targetUrl).host, 'proxy-authorization': `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
      },
      (res: IncomingMessage) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolveBody(res.statusCode === 200 ? text : undefined));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

try {
  await until('the server', async () => ((await fetch(new URL('/health', serverUrl))).ok ? true : undefined));
  let user = await signIn();
  if (BigInt(user.credits) < BYTES_PER_GB) {
    await topUp();
    user = (await call<{ user: DemoUser }>('GET', '/auth/user')).body.user;
  }
  const username = buildProxyUsername({ proxyUserId: user.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });
  await until('the gateway', () => throughGateway(username, user.proxyPassword));
  const gateway = `localhost:${env.GATEWAY_PORT}`;
  const line = '='.repeat(72);
  const banner = () =>
    [
      '',
      line,
      '  ProxyHub demo is running (Ctrl-C stops it). Paste these:',
      '',
      `  Web app     ${webUrl}`,
      `  Sign in     ${DEMO_EMAIL} / ${state.password}   (balance ${formatGb(BigInt(user.credits))} GB)`,
      `  Admin panel ${new URL('/admin', webUrl).toString()}   ${env.ADMIN_USERNAME} / ${state.adminPassword}`,
      '',
      `  Through the gateway (${gateway}) to a local test page (${targetUrl}), no internet needed:`,
      `  curl -x http://${username}:${user.proxyPassword}@${gateway} ${targetUrl}`,
      `  curl -x socks5h://${username}:${user.proxyPassword}@${gateway} ${targetUrl}`,
      '',
      `  Data in ${dataDir} (delete it for a fresh demo).`,
      line,
      '',
    ].join('\n');
  console.log(banner());
  // The demo's own sign-in is counted already: one more is a person who has read the banner.
  const signIns = async () =>
    (await call<{ profile?: { signIns: number } }>('GET', `/admin/users/${user.id}`, undefined, env.internalApiKey)).body.profile?.signIns;
  const seen = await signIns();
  const repeat = setInterval(() => {
    void signIns()
      .then((now) => {
        if (seen === undefined || now === undefined || now > seen) clearInterval(repeat);
        else console.log(banner());
      })
      .catch(() => undefined);
  }, bannerRepeatMs);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await stop(1);
}
