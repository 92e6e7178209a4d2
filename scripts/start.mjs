// Runs the whole product on one machine: the server (web app + API) and the proxy gateway.
// Secrets that are not configured are generated once into DATA_DIR/dev-secrets.json before either
// process starts, so both agree on them (the server refuses this in production).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import concurrently from 'concurrently';

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
const commands = [{ name: 'server', command: 'node apps/server/dist/main.js', env, prefixColor: 'cyan' }];
if (existsSync('apps/gateway/dist/main.js')) {
  commands.push({ name: 'gateway', command: 'node apps/gateway/dist/main.js', env, prefixColor: 'magenta' });
}
const { result } = concurrently(commands, { killOthersOn: ['failure', 'success'], handleInput: false });
result.then(
  () => process.exit(0),
  () => process.exit(1),
);
