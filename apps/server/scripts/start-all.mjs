// `pnpm start` (from the repository root): runs the whole product on one machine: the server (web app + API) and the proxy gateway.
// Secrets that are not configured are generated once into DATA_DIR/dev-secrets.json before either
// process starts, so both agree on them (the server refuses this in production).
// Supervision: a child that dies is started again (after 1 s, doubling up to 30 s while it keeps
// dying young) and the other keeps running. The children exit when this script dies, however it
// dies (they check that their parent is still the pid given in PROXYHUB_PARENT_PID, and watch their
// IPC channel to it; see exitWithParent in core/node); a new launcher first waits for an earlier run's
// processes (recorded in DATA_DIR/launcher.json) to be gone, so it comes up on the same ports.
// Shutdown order matters: the gateway stops first so its last usage report and returned leases
// reach a server that is still up; the children run in their own process groups so a Ctrl-C in
// the terminal reaches only this script, which then stops them in that order.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { endGroup, groupAlive, processRuns } from './process-groups.mjs';

const FIRST_RESTART_MS = 1000;
const MAX_RESTART_MS = 30_000;
/** A child that ran this long before dying is restarted without the accumulated backoff. */
const HEALTHY_AFTER_MS = 60_000;
/** How long a stopped child (and whatever it started) may take before it is killed. */
const STOP_GRACE_MS = 20_000;
/** Shorter when a child died: what it left behind must not hold up its replacement for long. */
const CRASH_GRACE_MS = 4000;

// A .env file beside package.json is read first; variables already set in the shell win.
if (existsSync('.env')) process.loadEnvFile('.env');

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
mkdirSync(dataDir, { recursive: true });
if (process.env.NODE_ENV !== 'production') {
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

// The children compare their parent with this pid from their first line: one read later could
// already see the process that adopts them, if this script died while they were starting.
const env = { ...process.env, DATA_DIR: dataDir, PROXYHUB_PARENT_PID: String(process.pid) };
const specs = [{ name: 'server', entry: resolve('apps/server/dist/main.js'), color: 36 }];
if (existsSync('apps/gateway/dist/main.js')) specs.push({ name: 'gateway', entry: resolve('apps/gateway/dist/main.js'), color: 35 });
const children = specs.map((spec) => ({ ...spec, child: null, group: 0, startedAt: 0, failures: 0, restartTimer: null }));

const stateFile = resolve(dataDir, 'launcher.json');
const SCRIPT = 'start-all.mjs';

function log(line) {
  process.stdout.write(`[launcher] ${line}\n`);
}

function saveState() {
  const groups = children.filter((c) => c.group).map((c) => ({ name: c.name, group: c.group, entry: c.entry }));
  writeFileSync(stateFile, JSON.stringify({ pid: process.pid, groups }, null, 2));
}

/** After a launcher was killed outright its children are still shutting down: wait for them. */
async function settleEarlierRun() {
  let earlier;
  try {
    earlier = JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return;
  }
  if (earlier.pid !== process.pid && processRuns(earlier.pid, SCRIPT)) {
    console.error(`[launcher] another launcher (pid ${earlier.pid}) is running with DATA_DIR ${dataDir}; stop it first`);
    process.exit(1);
  }
  for (const g of earlier.groups ?? []) {
    if (!groupAlive(g.group, g.entry)) continue;
    log(`waiting for the ${g.name} of an earlier run to exit`);
    await endGroup(g.group, g.entry, STOP_GRACE_MS);
  }
}

function start(c) {
  c.restartTimer = null;
  c.startedAt = Date.now();
  // The IPC channel and PROXYHUB_PARENT_PID are how the child learns this script died.
  const child = spawn(process.execPath, [c.entry], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  c.child = child;
  c.group = child.pid ?? 0;
  const prefix = `\x1b[${c.color}m[${c.name}]\x1b[0m `;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(prefix + line + '\n'));
  }
  child.on('error', (err) => log(`${c.name}: ${err.message}`));
  child.once('exit', (code, signal) => void onExit(c, code, signal));
  saveState();
}

async function onExit(c, code, signal) {
  c.child = null;
  if (stopping) return;
  if (Date.now() - c.startedAt >= HEALTHY_AFTER_MS) c.failures = 0;
  const delay = Math.min(MAX_RESTART_MS, FIRST_RESTART_MS * 2 ** c.failures);
  c.failures += 1;
  log(`${c.name} exited (${signal ?? code}); restarting it in ${delay / 1000} s`);
  // Whatever it started (the gateway's relay) goes with it before a new one takes the port.
  await Promise.all([endGroup(c.group, c.entry, CRASH_GRACE_MS), new Promise((r) => (c.restartTimer = setTimeout(r, delay)))]);
  if (!stopping) start(c);
}

let stopping = false;
async function stopAll(exitCode) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.restartTimer) clearTimeout(c.restartTimer);
  // Gateway first, then the server (reverse start order).
  for (const c of [...children].reverse()) {
    c.child?.kill('SIGTERM');
    if (c.group) await endGroup(c.group, c.entry, STOP_GRACE_MS);
  }
  rmSync(stateFile, { force: true });
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
// Started by another script with an IPC channel (`pnpm demo`): everything stops with that script, however it dies.
if (process.send) process.on('disconnect', () => void stopAll(0));
await settleEarlierRun();
for (const c of children) if (!stopping) start(c);
