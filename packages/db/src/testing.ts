import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createDb, migrationsFolder, type Database } from './client';

/**
 * A short hash of the migrations: templates made from other migrations are never used. Read once
 * per process (test files share their worker's modules, and every file opens a database).
 */
let hashOfMigrations: string | undefined;
function migrationsHash(): string {
  if (hashOfMigrations) return hashOfMigrations;
  const dir = migrationsFolder();
  const hash = createHash('sha256');
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(readFileSync(join(dir, name)));
  }
  hashOfMigrations = hash.digest('hex').slice(0, 16);
  return hashOfMigrations;
}

/**
 * A migrated, empty PGlite as a tarball, made once per set of migrations and kept in the temp
 * folder. A new PGlite runs initdb (~0.7 s of CPU) and the migrations (~0.3 s); one loaded from this
 * takes ~0.4 s, and every test file opens at least one.
 */
async function migratedTemplate(): Promise<Blob> {
  const file = join(tmpdir(), `proxyhub-pglite-${migrationsHash()}.tar`);
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
  try {
    await admin.unsafe(migrated ? `CREATE DATABASE ${name} TEMPLATE ${await postgresTemplate(admin, url)}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  const database = await createDb({ databaseUrl: testUrl.toString(), max: 20 });
  // Applies nothing on a copy of the template; a check that costs a query.
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

/**
 * The migrated, empty database that test databases on PostgreSQL are copied from (CREATE DATABASE
 * ... TEMPLATE), made once per set of migrations on that server and kept: copying it is a file
 * copy, where migrating each new database ran every migration again. Made under an advisory lock
 * (test files in other workers start at the same moment) and renamed into place when complete.
 */
async function postgresTemplate(admin: postgres.Sql, url: string): Promise<string> {
  const template = `proxyhub_template_${migrationsHash()}`;
  const exists = async () => (await admin`SELECT 1 FROM pg_database WHERE datname = ${template}`).length > 0;
  if (await exists()) return template;
  await admin`SELECT pg_advisory_lock(hashtext(${template}))`;
  try {
    if (await exists()) return template;
    const partial = `${template}_partial`;
    await admin.unsafe(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${partial}`);
    const partialUrl = new URL(url);
    partialUrl.pathname = `/${partial}`;
    const database = await createDb({ databaseUrl: partialUrl.toString(), max: 1 });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
    // A closed connection's backend can take a moment to leave, and a database in use cannot be renamed.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.unsafe(`ALTER DATABASE ${partial} RENAME TO ${template}`);
        return template;
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin`SELECT pg_advisory_unlock(hashtext(${template}))`;
  }
}
