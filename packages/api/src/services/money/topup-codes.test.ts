import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { gbToBytes } from '@proxyhub/core';
import { creditEntries, topupCodes } from '@proxyhub/db';
import { fileDatabase, userWallet, userWithAccount } from '../../../test/fixtures';
import { CODE_ALPHABET, CODE_EXPIRED, CODE_LENGTH, CODE_UNKNOWN, CODE_USED, createCodes, redeemCode } from './topup-codes';

const database = fileDatabase();

async function mint(creditsGB: number, quantity = 1, expiresAt: Date | null = null) {
  return database.db.transaction((tx) => createCodes(tx, { creditsGB, quantity, expiresAt, createdByAdminId: null, createdBy: 'service-test' }));
}

const redeem = (userId: string, code: string) => database.db.transaction((tx) => redeemCode(tx, { userId, code }));

describe('creating codes', () => {
  it('mints unguessable codes worth their face value, credited to no one yet', async () => {
    const codes = await mint(0.1, 20);
    expect(codes).toHaveLength(20);
    expect(new Set(codes.map((c) => c.code)).size).toBe(20);
    for (const c of codes) {
      expect(c.code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`));
      expect(c).toMatchObject({ creditsGB: 0.1, creditsBytes: gbToBytes(0.1), expiresAt: null });
    }
    expect(
      await database.db
        .select()
        .from(creditEntries)
        .where(sql`${creditEntries.sourceKey} like 'code:%'`),
    ).toHaveLength(0);
  });
});

describe('redeeming a code', () => {
  it('credits the code value once, with one ledger entry, in any case and spacing', async () => {
    const [code] = await mint(1.5);
    const { userId } = await userWithAccount(database.db);
    const r = await redeem(userId, `  ${code!.code.toLowerCase()} `);
    expect(r).toMatchObject({ creditedBytes: gbToBytes(1.5), remainingBytes: gbToBytes(1.5), message: 'Successfully redeemed 1536 MB' });
    expect(await userWallet(database.db, userId)).toEqual({ credits: gbToBytes(1.5), usage: 0n });
    const [row] = await database.db.select().from(topupCodes).where(eq(topupCodes.code, code!.code));
    expect(row).toMatchObject({ redeemedBy: userId });
    expect(
      await database.db
        .select()
        .from(creditEntries)
        .where(eq(creditEntries.sourceKey, `code:${row!.id}`)),
    ).toMatchObject([{ userId, kind: 'code', amountBytes: gbToBytes(1.5) }]);

    await expect(redeem(userId, code!.code)).rejects.toMatchObject({ code: 'CONFLICT', message: CODE_USED });
    const other = await userWithAccount(database.db);
    await expect(redeem(other.userId, code!.code)).rejects.toMatchObject({ code: 'CONFLICT', message: CODE_USED });
    expect((await userWallet(database.db, userId)).credits).toBe(gbToBytes(1.5));
    expect((await userWallet(database.db, other.userId)).credits).toBe(0n);
  });

  it('adds to what the wallet holds', async () => {
    const codes = await mint(0.5, 3);
    const { userId } = await userWithAccount(database.db);
    const balances = [];
    for (const c of codes) balances.push((await redeem(userId, c.code)).remainingBytes);
    expect(balances).toEqual([1n, 2n, 3n].map((n) => n * gbToBytes(0.5)));
  });

  it('refuses an unknown code', async () => {
    const { userId } = await userWithAccount(database.db);
    await expect(redeem(userId, 'ABCDEFGHJKMNPQRS')).rejects.toMatchObject({ code: 'NOT_FOUND', message: CODE_UNKNOWN });
  });

  it('refuses an expired code and credits nothing; one expiring later redeems', async () => {
    const [expired] = await mint(1, 1, new Date(Date.now() - 1000));
    const [later] = await mint(1, 1, new Date(Date.now() + 3_600_000));
    const { userId } = await userWithAccount(database.db);
    await expect(redeem(userId, expired!.code)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: CODE_EXPIRED });
    const [row] = await database.db.select().from(topupCodes).where(eq(topupCodes.code, expired!.code));
    expect(row).toMatchObject({ redeemedBy: null, redeemedAt: null });
    expect((await userWallet(database.db, userId)).credits).toBe(0n);
    expect((await redeem(userId, later!.code)).creditedBytes).toBe(gbToBytes(1));
  });

  it('credits exactly once when ten users redeem the same code at the same time', async () => {
    const [code] = await mint(2);
    const users = await Promise.all(Array.from({ length: 10 }, () => userWithAccount(database.db)));
    const results = await Promise.allSettled(users.flatMap((u) => [u, u, u].map(() => redeem(u.userId, code!.code))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'CONFLICT', message: CODE_USED });
    const wallets = await Promise.all(users.map((u) => userWallet(database.db, u.userId)));
    expect(wallets.reduce((sum, w) => sum + w.credits, 0n)).toBe(gbToBytes(2));
  });

  it('credits every code once when one user redeems many at the same time', async () => {
    const codes = await mint(0.1, 25);
    const { userId } = await userWithAccount(database.db);
    await Promise.all(codes.map((c) => redeem(userId, c.code)));
    expect((await userWallet(database.db, userId)).credits).toBe(25n * gbToBytes(0.1));
  });
});
