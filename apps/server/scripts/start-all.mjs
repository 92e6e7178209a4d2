// `pnpm start` (from the repository root): runs the whole product on one machine: the server (web app + API) and the proxy gateway.
// Secrets that are not configured are generated once into DATA_DIR/dev-secrets.json before either
// process starts, so both agree on them (the server refuses this in production).
// Shutdown order matters: the gateway stops first so its last usage report and returned leases
// reach a server that is still up; the children run in their own process groups so a Ctrl-C in
// the terminal reaches only this script, which then stops them in that order.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

// A .env file beside package.json is read first; variables already set in the shell win.
if (existsSync('.env')) process.loadEnvFile('.env');

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
if (process.env.NODE_ENV !== 'production') {
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(dataDir, 'dev-secrets.json');
  const secrets = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const name of ['APP_SECRET', 'INTERNAL_API_KEY']) {
    if (!process.env[name] && !secrets[name]) {
      secrets[name] = randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  if (changed) writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
}

const env = { ...process.env, DATA_DIR: dataDir };
const specs = [{ name: 'server', entry: 'apps/server/dist/main.js', color: 36 }];
if (existsSync('apps/gateway/dist/main.js')) specs.push({ name: 'gateway', entry: 'apps/gateway/dist/main.js', color: 35 });

const children = specs.map((spec) => {
  const child = spawn(process.execPath, [spec.entry], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `\x1b[${spec.color}m[${spec.name}]\x1b[0m `;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(prefix + line + '\n'));
  }
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  return { ...spec, child, exited, running: true };
});

let stopping = false;
async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  // Gateway first, then the server (reverse start order).
  for (const c of [...children].reverse()) {
    if (!c.running) continue;
    c.child.kill('SIGTERM');
    const timer = setTimeout(() => c.child.kill('SIGKILL'), 15_000);
    await c.exited;
    clearTimeout(timer);
  }
  process.exit(exitCode);
}

for (const c of children) {
  c.exited.then(({ code, signal }) => {
    c.running = false;
    if (!stopping) {
      console.error(`[${c.name}] exited (${signal ?? code}); stopping the rest`);
      void stopAll(code === 0 ? 0 : 1);
    }
  });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
