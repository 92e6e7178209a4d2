import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDb, type Database } from './client';

/**
 * A fresh, migrated database for one test file: an in-memory PGlite by default, or, when
 * DATABASE_URL is set (CI's second pass), a new database created on that server and dropped after.
 * `migrated: false` leaves it empty (readiness tests).
 */
export async function createTestDb(opts: { migrated?: boolean } = {}): Promise<Database> {
  const migrated = opts.migrated ?? true;
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await createDb({ dataDir: 'memory://' });
    if (migrated) await database.migrate();
    return database;
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  const database = await createDb({ databaseUrl: testUrl.toString(), max: 20 });
  if (migrated) await database.migrate();
  return {
    ...database,
    async close() {
      await database.close();
      const dropper = postgres(url, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
