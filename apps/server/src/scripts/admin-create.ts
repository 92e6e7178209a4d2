/**
 * `pnpm admin:create [username] [password]` (or --username/--password, or ADMIN_USERNAME/ADMIN_PASSWORD):
 * creates the admin or sets its password. With no password anywhere, one is generated and printed.
 * With the embedded database (PGlite), stop the server first: only one process may open it.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { upsertAdmin } from '@proxyhub/api';
import { DomainError } from '@proxyhub/core';
import { createDb } from '@proxyhub/db';
import { loadEnv } from '../env';
import { useRepoRoot } from './repo-root';

useRepoRoot();

const { values, positionals } = parseArgs({
  // `pnpm <script> -- --flag` passes the `--` along.
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: { username: { type: 'string', short: 'u' }, password: { type: 'string', short: 'p' } },
  allowPositionals: true,
});

const env = loadEnv();
const username = values.username ?? positionals[0] ?? env.ADMIN_USERNAME;
const given = values.password ?? positionals[1] ?? env.ADMIN_PASSWORD;
const password = given ?? randomBytes(18).toString('base64url');

const database = await createDb({ databaseUrl: env.DATABASE_URL, dataDir: `${env.dataDir}/pglite`, max: 1 });
try {
  await database.migrate();
  const r = await upsertAdmin(database.db, { username, password });
  console.log(`Admin "${username}" ${r.created ? 'created' : 'updated'} (${database.driver}).`);
  if (!given) console.log(`Generated password (shown once): ${password}`);
} catch (err) {
  console.error(err instanceof DomainError ? err.message : err);
  process.exitCode = 1;
} finally {
  await database.close();
}
