// Times generating and rendering 10,000 proxies in Chromium against the built product, and weighs
// the JavaScript a signed-out visitor downloads. Run from the repo root: `pnpm bench:web` (builds
// the web app first). Builds the server, starts `node apps/server/dist/main.js` on a free port with a
// temporary DATA_DIR, opens each signed-out page in a fresh browser profile and sums the gzip sizes
// of the scripts it loads, then signs a user up through the mail outbox, opens /proxies and measures
// RUNS generations of 10,000 proxies. Each figure is printed beside its target.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { signedOutScripts } from './scripts.mjs';

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
/** Targets of issue 17 and the figures before it (README), printed beside each measure. */
const TARGETS = { generateMs: 150, reformatMs: 100, signedOutKb: 100 };
const meets = (value, target) => (value < target ? 'met' : 'NOT met');
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

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
  const scripts = await signedOutScripts(browser, baseUrl);

  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
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
  const copy = [];
  const formats = ['host:port@user:pass', 'user:pass:host:port', 'user:pass@host:port', 'host:port:user:pass'];
  for (let run = 0; run < RUNS; run++) {
    // Click to the first frame after the list is on screen, timed inside the page.
    const r = await page.evaluate(async () => {
      // The list draws only the lines in view: a new first row says the new list is on screen.
      const first = () => document.querySelector('[data-testid="proxy-output"] [role="listitem"]')?.textContent ?? '';
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Generate Proxies');
      const before = first();
      const t0 = performance.now();
      button.click();
      while (first() === before) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const ms = performance.now() - t0;
      const row = document.querySelector('[data-testid="proxy-output"] [role="listitem"]');
      return { ms, lines: Number(row.getAttribute('aria-setsize')), commit: Number(document.documentElement.dataset.lastGenerateMs) };
    });
    if (r.lines !== COUNT) throw new Error(`expected ${COUNT} lines, got ${r.lines}`);
    generate.push(r.ms);
    inPage.push(r.commit);
    const f = formats[run % formats.length];
    const ms = await page.evaluate(async (format) => {
      const first = () => document.querySelector('[data-testid="proxy-output"] [role="listitem"]')?.textContent ?? '';
      const select = document.querySelector('select[name="format"]');
      const before = first();
      const t0 = performance.now();
      select.value = format;
      select.dispatchEvent(new Event('change', { bubbles: true }));
      while (first() === before) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t0;
    }, f);
    reformat.push(ms);
    // Copy All now builds the whole text: click to the frame that shows "Copied!", with all lines on the clipboard.
    const c = await page.evaluate(async () => {
      const button = document.querySelector('button[aria-label="Copy all proxies"]');
      const t0 = performance.now();
      button.click();
      while (!button.textContent.includes('Copied!')) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const ms = performance.now() - t0;
      const lines = (await navigator.clipboard.readText()).split('\n').length;
      while (button.textContent.includes('Copied!')) await new Promise((r) => setTimeout(r, 50));
      return { ms, lines };
    });
    if (c.lines !== COUNT) throw new Error(`expected ${COUNT} copied lines, got ${c.lines}`);
    copy.push(c.ms);
  }
  const cpu = (await import('node:os')).cpus()[0]?.model ?? 'unknown CPU';
  const g = stats(generate);
  const f = stats(reformat);
  console.log(`\nProxy generator, ${COUNT.toLocaleString('en-US')} proxies, ${RUNS} runs, Chromium headless, ${cpu}`);
  console.log(`  generate + render (click to next frame):  ${fmt(g)}  target < ${TARGETS.generateMs} ms: ${meets(g.median, TARGETS.generateMs)}`);
  console.log(`  generate + React commit (in-page measure): ${fmt(stats(inPage))}`);
  console.log(`  switch list format (change to next frame): ${fmt(f)}  target < ${TARGETS.reformatMs} ms: ${meets(f.median, TARGETS.reformatMs)}`);
  console.log(`  Copy All (click to "Copied!" frame):       ${fmt(stats(copy))}`);

  console.log(`\nJavaScript a signed-out visitor loads (gzip -9 of each script Chromium fetched, fresh profile):`);
  for (const p of scripts.pages)
    console.log(
      `  ${p.path.padEnd(24)} ${kb(p.gzipBytes).padStart(9)} in ${p.files.length} files (${kb(p.rawBytes)} uncompressed)  target < ${TARGETS.signedOutKb} kB: ${meets(p.gzipBytes / 1000, TARGETS.signedOutKb)}`,
    );
  const worst = Math.max(...scripts.pages.map((p) => p.gzipBytes));
  console.log(`  largest single page:     ${kb(worst).padStart(9)}  target < ${TARGETS.signedOutKb} kB: ${meets(worst / 1000, TARGETS.signedOutKb)}`);
  console.log(
    `  all signed-out pages:    ${kb(scripts.union.gzipBytes).padStart(9)} in ${scripts.union.files.length} files  target < ${TARGETS.signedOutKb} kB: ${meets(scripts.union.gzipBytes / 1000, TARGETS.signedOutKb)}`,
  );
  console.log(
    `  largest scripts: ${scripts.union.files
      .slice(0, 4)
      .map((x) => `${x.name} ${kb(x.gzipBytes)}`)
      .join(', ')}`,
  );
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
}
