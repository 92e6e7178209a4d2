import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@proxyhub/db';
import { adminUsers } from '@proxyhub/db';
import { verifyPassword } from '@proxyhub/auth';
import { expectLedgerOk } from './credits-helpers';
import { INTERNAL_KEY, signedInUser, startTestServer, type TestServer } from './helpers';

const run = promisify(execFile);
const serverDir = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(serverDir, 'node_modules/.bin/tsx');

/** The scripts' environment: only what they need, never the test run's DATABASE_URL. */
function scriptEnv(extra: Record<string, string>) {
  // Empty values count as unset and keep a developer's .env (loaded by the scripts) from filling them in.
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    DATABASE_URL: '',
    REDIS_URL: '',
    ...extra,
  };
}

describe('pnpm admin:create', () => {
  it('creates the admin in the configured database, then updates its password', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'proxyhub-admin-create-'));
    const env = scriptEnv({ DATA_DIR: dataDir });
    const first = await run(tsx, ['src/scripts/admin-create.ts', 'ops', 'First-Password-1'], { cwd: serverDir, env });
    expect(first.stdout).toContain('Admin "ops" created');
    const second = await run(tsx, ['src/scripts/admin-create.ts', '--', '--username', 'ops', '--password', 'Second-Password-2'], { cwd: serverDir, env });
    expect(second.stdout).toContain('Admin "ops" updated');
    await expect(run(tsx, ['src/scripts/admin-create.ts', 'ops', 'short'], { cwd: serverDir, env })).rejects.toMatchObject({
      stderr: expect.stringContaining('Admin password must be at least 8 characters'),
    });
    const db = await createDb({ dataDir: join(dataDir, 'pglite') });
    try {
      const [row] = await db.db.select().from(adminUsers);
      expect(row!.username).toBe('ops');
      expect(await verifyPassword(row!.passwordHash, 'Second-Password-2')).toBe(true);
    } finally {
      await db.close();
    }
    // Three cold processes, each creating an embedded database: slow when the machine is busy.
  }, 90_000);
});

describe('create-codes (typed internal client)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('mints codes over tRPC with the internal key; a user can redeem one', async () => {
    const env = scriptEnv({ DATA_DIR: server.dataDir, PUBLIC_URL: server.url, INTERNAL_API_KEY: INTERNAL_KEY });
    const { stdout } = await run(tsx, ['src/scripts/create-codes.ts', '--gb', '0.5', '--quantity', '3'], { cwd: serverDir, env });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^[A-HJKMNP-Z2-9]{16}\t0\.5 GB\t512 MB\tno expiry$/);
    const { client } = await signedInUser(server);
    expect(await client.post('/auth/redeem-code', { code: lines[0]!.split('\t')[0] })).toMatchObject({ status: 200, body: { credits: 512 } });
    await expect(run(tsx, ['src/scripts/create-codes.ts', '--gb', '0.05'], { cwd: serverDir, env })).rejects.toMatchObject({
      stderr: expect.stringContaining('Refused: Credits must be at least 0.1 GB'),
    });
    const wrongKey = scriptEnv({ DATA_DIR: server.dataDir, PUBLIC_URL: server.url, INTERNAL_API_KEY: 'not-the-key' });
    await expect(run(tsx, ['src/scripts/create-codes.ts'], { cwd: serverDir, env: wrongKey })).rejects.toMatchObject({
      stderr: expect.stringContaining('Refused'),
    });
    await expectLedgerOk(server);
  });
});
