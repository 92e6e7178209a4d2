/**
 * Rows for service-level tests. The services take a transaction, so these tests work below the
 * HTTP API: a user and their proxy account are written directly (registration is an HTTP flow with
 * mail, tested in apps/server), and balances are read from the rows the services move.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { batches, proxyAccounts, users, type Database, type Db } from '@proxyhub/db';
import { createTestDb } from '@proxyhub/db/testing';
import { checkLedger, checkUserLedger, credit } from '../src/index';

/**
 * A fresh database for the calling test file (in-memory PGlite, or one of its own on DATABASE_URL,
 * dropped after), with the ledger invariant checked after every test. `db` is set once it is ready.
 */
export function fileDatabase(): { db: Db } {
  const holder = {} as { db: Db };
  let database: Database;
  beforeAll(async () => {
    database = await createTestDb();
    holder.db = database.db;
  });
  afterAll(() => database.close());
  afterEach(() => expectLedgerOk(holder.db));
  return holder;
}

export const MiB = 1024n * 1024n;
export const GiB = 1024n * MiB;

/** A user with a normal proxy account, holding `bytes` of credit (an admin adjustment). */
export async function userWithAccount(db: Db, bytes = 0n): Promise<{ userId: string; proxyAccountId: string }> {
  const tag = randomBytes(6).toString('hex');
  const [user] = await db
    .insert(users)
    .values({ email: `u-${tag}@example.com`, name: 'Service Test', apiKeyHash: `hash-${tag}`, apiKeyEnc: 'enc' })
    .returning({ id: users.id });
  const [account] = await db
    .insert(proxyAccounts)
    .values({ proxyUserId: `p${tag}`, proxyPasswordEnc: 'enc', userId: user!.id })
    .returning({ id: proxyAccounts.id });
  if (bytes > 0n) await addCredits(db, user!.id, bytes);
  return { userId: user!.id, proxyAccountId: account!.id };
}

export function addCredits(db: Db, userId: string, bytes: bigint) {
  return db.transaction((tx) => credit(tx, { wallet: { userId }, bytes, kind: 'admin_adjustment', sourceKey: `test:${randomUUID()}` }));
}

/** The user's wallet as stored: credits left and usage counted. */
export async function userWallet(db: Db, userId: string) {
  const [u] = await db.select({ credits: users.creditsBytes, usage: users.totalUsageBytes }).from(users).where(eq(users.id, userId));
  return u!;
}

export async function batchRow(db: Db, batchCode: string) {
  const [b] = await db.select().from(batches).where(eq(batches.batchCode, batchCode));
  return b!;
}

/** The ledger invariant (docs/design.md) over the database and, when given, for one user's wallet. */
export async function expectLedgerOk(db: Db, userId?: string) {
  const all = await checkLedger(db);
  expect(all, `ledger: entries ${all.entries} = credits ${all.credits} + leased ${all.leased} + usage ${all.usage}`).toMatchObject({ ok: true });
  if (userId) expect(await checkUserLedger(db, userId)).toMatchObject({ ok: true });
}
