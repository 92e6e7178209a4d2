import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { batches, creditEntries, users } from '@proxyhub/db';
import { addCredits, fileDatabase, GiB, MiB, userWallet, userWithAccount } from '../../../test/fixtures';
import { checkLedger, checkUserLedger, credit } from '../../index';

const database = fileDatabase();

const entriesOf = (userId: string) => database.db.select().from(creditEntries).where(eq(creditEntries.userId, userId));

describe('credit', () => {
  it('writes one entry and moves the wallet by its amount, returning the new balance', async () => {
    const { userId } = await userWithAccount(database.db);
    const sourceKey = `payment:${randomUUID()}`;
    const balance = await database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes: 3n * GiB, kind: 'payment', sourceKey, note: 'three' }));
    expect(balance).toBe(3n * GiB);
    expect(await userWallet(database.db, userId)).toEqual({ credits: 3n * GiB, usage: 0n });
    expect(await entriesOf(userId)).toMatchObject([{ kind: 'payment', sourceKey, amountBytes: 3n * GiB, note: 'three', batchId: null }]);
    expect(await checkUserLedger(database.db, userId)).toEqual({ entries: 3n * GiB, credits: 3n * GiB, leased: 0n, usage: 0n, ok: true });
  });

  it('credits a source once: a repeat of its key changes nothing and says so', async () => {
    const { userId } = await userWithAccount(database.db);
    const input = { wallet: { userId }, bytes: GiB, kind: 'code' as const, sourceKey: `code:${randomUUID()}` };
    expect(await database.db.transaction((tx) => credit(tx, input))).toBe(GiB);
    expect(await database.db.transaction((tx) => credit(tx, input))).toBeNull();
    // The key is the source, not the wallet: another user cannot be credited from it either.
    const other = await userWithAccount(database.db);
    expect(await database.db.transaction((tx) => credit(tx, { ...input, wallet: { userId: other.userId } }))).toBeNull();
    expect((await userWallet(database.db, userId)).credits).toBe(GiB);
    expect((await userWallet(database.db, other.userId)).credits).toBe(0n);
    expect(await entriesOf(userId)).toHaveLength(1);
  });

  it('credits a source once under 30 concurrent attempts', async () => {
    const { userId } = await userWithAccount(database.db);
    const sourceKey = `payment:${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes: 5n * MiB, kind: 'payment', sourceKey }))),
    );
    expect(results.filter((r) => r !== null)).toEqual([5n * MiB]);
    expect((await userWallet(database.db, userId)).credits).toBe(5n * MiB);
    expect(await entriesOf(userId)).toHaveLength(1);
  });

  it('refuses a debit below zero and leaves neither an entry nor a change', async () => {
    const { userId } = await userWithAccount(database.db, 10n * MiB);
    const sourceKey = `reversal:${randomUUID()}`;
    await expect(database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes: -11n * MiB, kind: 'reversal', sourceKey }))).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect((await userWallet(database.db, userId)).credits).toBe(10n * MiB);
    expect(await entriesOf(userId)).toHaveLength(1);
    // Down to exactly zero is allowed.
    expect(await database.db.transaction((tx) => credit(tx, { wallet: { userId }, bytes: -10n * MiB, kind: 'reversal', sourceKey }))).toBe(0n);
  });

  it('credits a batch wallet the same way', async () => {
    const [batch] = await database.db
      .insert(batches)
      .values({ batchCode: `BT${randomUUID().slice(0, 8)}`, usageType: 'shop_proxy_regular' })
      .returning();
    expect(
      await database.db.transaction((tx) => credit(tx, { wallet: { batchId: batch!.id }, bytes: 7n * MiB, kind: 'batch', sourceKey: `batch:${batch!.id}` })),
    ).toBe(7n * MiB);
    const [row] = await database.db.select().from(batches).where(eq(batches.id, batch!.id));
    expect(row!.creditsBytes).toBe(7n * MiB);
  });
});

describe('the invariant check', () => {
  it('sees a balance changed outside the ledger, in total and for that user', async () => {
    const { userId } = await userWithAccount(database.db, GiB);
    await addCredits(database.db, userId, MiB);
    expect((await checkUserLedger(database.db, userId)).ok).toBe(true);
    await database.db
      .update(users)
      .set({ creditsBytes: sql`${users.creditsBytes} + 1` })
      .where(eq(users.id, userId));
    expect(await checkUserLedger(database.db, userId)).toMatchObject({ entries: GiB + MiB, credits: GiB + MiB + 1n, ok: false });
    expect((await checkLedger(database.db)).ok).toBe(false);
    // Put it back, so the check after this test holds.
    await database.db
      .update(users)
      .set({ creditsBytes: sql`${users.creditsBytes} - 1` })
      .where(eq(users.id, userId));
  });
});
