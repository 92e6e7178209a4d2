// Times generating and rendering 10,000 proxies in Chromium against the built product.
// Run from the repo root: `pnpm bench:web` (builds the web app first). Builds the server, starts
// `node apps/server/dist/main.js` on a free port with a temporary DATA_DIR, signs a user up through
// the mail outbox, opens /proxies in Chromium and measures RUNS generations of 10,000 proxies.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 7);
const COUNT = 10_000;

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median, max: s.at(-1) };
};
const fmt = ({ min, median, max }) => `median ${median.toFixed(1)} ms (min ${min.toFixed(1)}, max ${max.toFixed(1)})`;

console.log('building the server...');
execFileSync('pnpm', ['--filter', '@proxyhub/server', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

const port = await freePort();
const baseUrl = `http://localhost:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-bench-web-'));
const server = spawn(process.execPath, ['apps/server/dist/main.js'], {
  cwd: ROOT,
  env: {
    ...process.env,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    ADMIN_PASSWORD: 'bench-admin-password',
    WEB_DIST_DIR: join(ROOT, 'apps/web/dist'),
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
let browser;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    if (i > 600) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }

  // A verified user, through the product's own API and the mail outbox.
  const email = `bench-${Date.now()}@example.com`;
  const password = 'BenchSecret123';
  const json = { 'content-type': 'application/json', origin: baseUrl };
  const reg = await fetch(`${baseUrl}/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password, name: 'Bench User' }) });
  if (!reg.ok) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  let token;
  for (let i = 0; i < 100 && !token; i++) {
    const dir = join(dataDir, 'mail');
    const files = (() => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    })();
    for (const f of files) {
      const m = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      if (m.to === email) token = /token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1];
    }
    if (!token) await new Promise((r) => setTimeout(r, 100));
  }
  if (!token) throw new Error('no verification mail');
  const verify = await fetch(`${baseUrl}/auth/verify-email?token=${token}`);
  if (!verify.ok) throw new Error(`verify: ${verify.status}`);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await browser.newPage({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await page.waitForURL('**/dashboard');
  await page.goto('/proxies');
  await page.getByLabel('Number of Proxies').fill(String(COUNT));
  // Generate waits for the gateway endpoint: start once the button is enabled.
  await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Generate Proxies' && !b.disabled));

  const generate = [];
  const inPage = [];
  const reformat = [];
  const formats = ['host:port@user:pass', 'user:pass:host:port', 'user:pass@host:port', 'host:port:user:pass'];
  for (let run = 0; run < RUNS; run++) {
    // Click to the first frame after the list is on screen, timed inside the page.
    const r = await page.evaluate(async () => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Generate Proxies');
      const area = document.querySelector('[data-testid="proxy-output"]');
      const before = area.value;
      const t0 = performance.now();
      button.click();
      while (area.value === before) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const ms = performance.now() - t0;
      return { ms, lines: area.value.split('\n').length, commit: Number(document.documentElement.dataset.lastGenerateMs) };
    });
    if (r.lines !== COUNT) throw new Error(`expected ${COUNT} lines, got ${r.lines}`);
    generate.push(r.ms);
    inPage.push(r.commit);
    const f = formats[run % formats.length];
    const ms = await page.evaluate(async (format) => {
      const select = document.querySelector('select[name="format"]');
      const area = document.querySelector('[data-testid="proxy-output"]');
      const before = area.value;
      const t0 = performance.now();
      select.value = format;
      select.dispatchEvent(new Event('change', { bubbles: true }));
      while (area.value === before) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t0;
    }, f);
    reformat.push(ms);
  }
  const cpu = (await import('node:os')).cpus()[0]?.model ?? 'unknown CPU';
  console.log(`\nProxy generator, ${COUNT.toLocaleString('en-US')} proxies, ${RUNS} runs, Chromium headless, ${cpu}`);
  console.log(`  generate + render (click to next frame):  ${fmt(stats(generate))}`);
  console.log(`  generate + React commit (in-page measure): ${fmt(stats(inPage))}`);
  console.log(`  switch list format (change to next frame): ${fmt(stats(reformat))}`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
}
