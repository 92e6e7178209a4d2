import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Development only: a secret that is not configured is generated once and kept in
 * DATA_DIR/dev-secrets.json, so the server and the gateway started side by side agree on it and
 * credentials encrypted at rest stay readable across restarts. Production refuses to start instead.
 */
export function devSecret(dataDir: string, name: string, generate: () => string = () => randomBytes(32).toString('base64url')): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'dev-secrets.json');
  let secrets: Record<string, string> = {};
  try {
    secrets = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    // first start
  }
  if (!secrets[name]) {
    secrets[name] = generate();
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets[name];
}
