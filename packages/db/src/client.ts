import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { desc, sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { bigint, pgSchema, serial, text, type PgDatabase, type PgQueryResultHKT, type PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;
/** The driver-neutral database type: services take this (or a transaction, which is one too). */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Readiness: rejects when the database does not answer a `select 1`. */
  ping(): Promise<void>;
  /** How many of the bundled migrations this database has applied (readiness). */
  migrationState(): Promise<MigrationState>;
  /** The connection pool as the database sees it (metrics). */
  poolStats(): Promise<PoolStats>;
  /** The embedded database's files as one tarball (PGlite only): a start for `loadDataDir`. */
  dumpDataDir?(): Promise<Blob>;
}

export interface MigrationState {
  /** Migrations bundled with this build. */
  expected: number;
  /** Rows in drizzle's migrations table (0 when it does not exist yet). */
  applied: number;
  /** The newest bundled migration is applied: what drizzle's migrator itself checks. */
  latest: boolean;
}

export interface PoolStats {
  /** Most connections the pool opens. */
  max: number;
  /** This pool's open connections by server-side state (active, idle, idle in transaction). */
  connections: Record<string, number>;
}

// drizzle's own bookkeeping table (what migrate() writes); deliberately outside ./schema so
// drizzle-kit never generates a migration for it.
const migrationsTable = pgSchema('drizzle').table('__drizzle_migrations', {
  id: serial('id').primaryKey(),
  hash: text('hash').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }),
});

async function migrationState(db: Db): Promise<MigrationState> {
  const bundled = readMigrationFiles({ migrationsFolder: migrationsFolder() });
  const newest = bundled.at(-1)?.folderMillis ?? 0;
  try {
    const rows = await db.select({ createdAt: migrationsTable.createdAt }).from(migrationsTable).orderBy(desc(migrationsTable.createdAt));
    return { expected: bundled.length, applied: rows.length, latest: Number(rows[0]?.createdAt ?? -1) >= newest };
  } catch (err) {
    // 42P01 (drizzle wraps the driver's error): the table or its schema does not exist, nothing
    // was ever migrated here.
    const e = err as { code?: string; cause?: { code?: string } };
    if ((e.code ?? e.cause?.code) === '42P01' || (e.code ?? e.cause?.code) === '3F000') {
      return { expected: bundled.length, applied: 0, latest: bundled.length === 0 };
    }
    throw err;
  }
}

let poolSerial = 0;
/** pg_advisory_lock key that serialises migrations across processes ("proxyhub" in ASCII, truncated). */
const MIGRATION_LOCK_KEY = 7_310_034_283_826_791;

export interface CreateDbOptions {
  /** postgres:// URL; without it PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for an in-memory database. */
  dataDir?: string | undefined;
  /** postgres.js pool size. */
  max?: number;
  /** PGlite only: start from these files (a `dumpDataDir()` of another database) instead of an empty cluster. */
  loadDataDir?: Blob | undefined;
}

/** Where the committed migrations are: beside the sources, or copied next to a bundled build. */
export function migrationsFolder(): string {
  for (const rel of ['../drizzle', './drizzle']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new Error('drizzle migrations folder not found');
}

export async function createDb(opts: CreateDbOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const max = opts.max ?? 10;
    // A name of its own per pool, so pg_stat_activity tells this pool's connections apart (metrics).
    const applicationName = `proxyhub-${process.pid}-${++poolSerial}`;
    const client = postgres(opts.databaseUrl, { max, onnotice: () => {}, connection: { application_name: applicationName } });
    const db = drizzlePostgres(client, { schema }) as unknown as Db;
    return {
      db,
      driver: 'postgres',
      async migrate() {
        // Several servers may start at once against one database: one migrates, the others wait
        // for it (a session lock on a connection of its own), then find nothing left to do.
        const lock = postgres(opts.databaseUrl!, { max: 1, onnotice: () => {} });
        try {
          await lock.unsafe(`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
          await migratePostgres(drizzlePostgres(client, { schema }), { migrationsFolder: migrationsFolder() });
        } finally {
          await lock.end({ timeout: 5 });
        }
      },
      close: () => client.end({ timeout: 5 }),
      ping: async () => void (await db.execute(sql`select 1`)),
      migrationState: () => migrationState(db),
      async poolStats() {
        const rows = await client<{ state: string | null; n: number }[]>`
          select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity where application_name = ${applicationName} group by 1`;
        return { max, connections: Object.fromEntries(rows.map((r) => [r.state ?? 'unknown', r.n])) };
      },
    };
  }
  const dataDir = opts.dataDir ?? '.data/pglite';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  // PGlite is one connection in this process: only the server opens it.
  // pg_trgm backs the admin's substring search (migration 0006); PGlite loads it like PostgreSQL's contrib.
  const client = new PGlite(dataDir, { extensions: { pg_trgm }, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) });
  await client.waitReady;
  const pglite = drizzlePglite(client, { schema });
  const db = pglite as unknown as Db;
  return {
    db,
    driver: 'pglite',
    migrate: () => migratePglite(pglite, { migrationsFolder: migrationsFolder() }),
    close: () => client.close(),
    ping: async () => void (await db.execute(sql`select 1`)),
    migrationState: () => migrationState(db),
    // One connection, always open, inside this process.
    poolStats: () => Promise.resolve({ max: 1, connections: { active: 1 } }),
    dumpDataDir: () => client.dumpDataDir('none'),
  };
}
