import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createDb, migrationsFolder, type Database } from './client';

/**
 * A migrated, empty PGlite as a tarball, made once per set of migrations and kept in the temp
 * folder. A new PGlite runs initdb (~0.7 s of CPU) and the migrations (~0.3 s); one loaded from this
 * takes ~0.4 s, and every test file opens at least one.
 */
async function migratedTemplate(): Promise<Blob> {
  const dir = migrationsFolder();
  const hash = createHash('sha256');
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(readFileSync(join(dir, name)));
  }
  const file = join(tmpdir(), `proxyhub-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const database = await createDb({ dataDir: 'memory://' });
  await database.migrate();
  const blob = await database.dumpDataDir!();
  await database.close();
  // Written aside and renamed: test files in other workers may be reading it at the same moment.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
  renameSync(partial, file);
  return blob;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite by default, or, when
 * DATABASE_URL is set (the `:pg` projects of a run with DATABASE_URL), a new database created on that server and dropped after.
 * `migrated: false` leaves it empty (readiness tests).
 */
export async function createTestDb(opts: { migrated?: boolean } = {}): Promise<Database> {
  const migrated = opts.migrated ?? true;
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await createDb({ dataDir: 'memory://', ...(migrated ? { loadDataDir: await migratedTemplate() } : {}) });
    // Applies nothing on a template of the current migrations; a check that costs a query.
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
