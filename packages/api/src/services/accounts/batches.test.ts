import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '@proxyhub/auth';
import { gbToBytes } from '@proxyhub/core';
import { creditEntries, proxyAccounts } from '@proxyhub/db';
import { batchRow, expectLedgerOk, fileDatabase, GiB, MiB, userWallet, userWithAccount } from '../../../test/fixtures';
import { BATCH_ALREADY_YOURS, BATCH_TAKEN, BATCH_UNKNOWN, createBatch, processBatch } from './batches';
import { applyGatewayReport, reserveLease } from '../gateway/leases';

const database = fileDatabase();

const secrets = new SecretBox('service-test-secret-0123456789abcdef');

async function newBatch(creditsGB: number, accounts = 1) {
  const made = await database.db.transaction((tx) => createBatch(tx, secrets, { accounts, creditsGB, usageType: 'shop_proxy_regular' }));
  const batch = await batchRow(database.db, made.batchId);
  const rows = await database.db.select().from(proxyAccounts).where(eq(proxyAccounts.batchId, batch.id));
  return { code: made.batchId, batch, accountIds: rows.map((r) => r.id), made };
}

const associate = (userId: string, batchId: string) => database.db.transaction((tx) => processBatch(tx, { userId, batchId }));
const reserve = (gatewayId: string, proxyAccountId: string, bytes: bigint) =>
  database.db.transaction((tx) => reserveLease(tx, { gatewayId, proxyAccountId, bytes: Number(bytes) }));
let seq = 0;
const report = (gatewayId: string, leaseId: string, bytes: bigint, release = false) =>
  database.db.transaction((tx) =>
    applyGatewayReport(tx, { gatewayId, seq: ++seq, items: [{ leaseId, bytesUp: 0, bytesDown: Number(bytes), sessions: 1, release }] }),
  );
/** Reserves for the accounts in turn until the allowance is empty; answers the bytes granted. */
async function drain(gatewayId: string, accountIds: readonly string[]): Promise<bigint> {
  let granted = 0n;
  for (let i = 0; i < 1000; i++) {
    const g = await reserve(gatewayId, accountIds[i % accountIds.length]!, 60n * MiB);
    if (g.outcome === 'empty' || g.outcome === 'cap_reached') return granted;
    granted += g.grantedBytes;
  }
  throw new Error('still granting after 1,000 reservations');
}

describe('creating a batch', () => {
  it('gives its accounts an allowance of their own, through the ledger', async () => {
    const { batch, accountIds, made } = await newBatch(0.5, 3);
    expect(made.accounts).toHaveLength(3);
    expect(accountIds).toHaveLength(3);
    expect(batch).toMatchObject({ creditsBytes: gbToBytes(0.5), associatedUserId: null, capBytes: null });
    expect(await database.db.select().from(creditEntries).where(eq(creditEntries.batchId, batch.id))).toMatchObject([
      { kind: 'batch', amountBytes: gbToBytes(0.5) },
    ]);
    // Before association the accounts spend the batch's allowance.
    const grant = await reserve('gw-batch', accountIds[0]!, GiB);
    expect(grant).toMatchObject({ outcome: 'granted', grantedBytes: gbToBytes(0.5) });
    expect((await batchRow(database.db, made.batchId)).creditsBytes).toBe(0n);
  });
});

describe('associating a batch', () => {
  it('moves the accounts and the remaining allowance to the user, once', async () => {
    const { code, batch, accountIds } = await newBatch(1.5, 2);
    const u = await userWithAccount(database.db, GiB);
    const r = await associate(u.userId, ` ${code.toLowerCase()} `);
    expect(r).toMatchObject({ creditedBytes: gbToBytes(1.5), accounts: 2, message: 'Batch associated: 2 proxy accounts and 1536 MB added to your account.' });
    expect((await userWallet(database.db, u.userId)).credits).toBe(GiB + gbToBytes(1.5));
    expect(await batchRow(database.db, code)).toMatchObject({ associatedUserId: u.userId, creditsBytes: 0n, capBytes: gbToBytes(1.5), capUsedBytes: 0n });
    const owned = await database.db.select().from(proxyAccounts).where(eq(proxyAccounts.userId, u.userId));
    expect(owned.map((a) => a.id).sort()).toEqual([u.proxyAccountId, ...accountIds].sort());
    expect(await database.db.select().from(creditEntries).where(eq(creditEntries.batchId, batch.id))).toHaveLength(2);
    await expectLedgerOk(database.db, u.userId);

    await expect(associate(u.userId, code)).rejects.toMatchObject({ code: 'CONFLICT', message: BATCH_ALREADY_YOURS });
    const other = await userWithAccount(database.db);
    await expect(associate(other.userId, code)).rejects.toMatchObject({ code: 'CONFLICT', message: BATCH_TAKEN });
    expect((await userWallet(database.db, u.userId)).credits).toBe(GiB + gbToBytes(1.5));
    expect((await userWallet(database.db, other.userId)).credits).toBe(0n);
  });

  it('refuses an unknown batch', async () => {
    const u = await userWithAccount(database.db);
    await expect(associate(u.userId, 'BTNOSUCHBATCH')).rejects.toMatchObject({ code: 'NOT_FOUND', message: BATCH_UNKNOWN });
  });

  it('is associated once when eight users try three times each at the same time', async () => {
    const { code } = await newBatch(3, 5);
    const users = await Promise.all(Array.from({ length: 8 }, () => userWithAccount(database.db)));
    const results = await Promise.allSettled(users.flatMap((u) => [u, u, u].map(() => associate(u.userId, code))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'CONFLICT' });
    const wallets = await Promise.all(users.map((u) => userWallet(database.db, u.userId)));
    expect(wallets.reduce((sum, w) => sum + w.credits, 0n)).toBe(gbToBytes(3));
  });

  it('moves open gateway leases with the accounts: the cap counts them, their rest goes to the user', async () => {
    const { code, accountIds } = await newBatch(1);
    const gw = `gw-${randomUUID().slice(0, 8)}`;
    const lease = await reserve(gw, accountIds[0]!, 100n * MiB);
    await report(gw, lease.leaseId!, 10n * MiB);
    const u = await userWithAccount(database.db);
    expect((await associate(u.userId, code)).creditedBytes).toBe(GiB - 100n * MiB);
    expect(await batchRow(database.db, code)).toMatchObject({ creditsBytes: 0n, capBytes: GiB - 10n * MiB });
    await expectLedgerOk(database.db, u.userId);
    // The gateway reports the rest of the lease's traffic and releases it: usage and return are the user's.
    await report(gw, lease.leaseId!, 20n * MiB, true);
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: GiB - 30n * MiB, usage: 20n * MiB });
    expect((await batchRow(database.db, code)).capUsedBytes).toBe(20n * MiB);
    await expectLedgerOk(database.db, u.userId);
  });
});

describe('the batch cap after association', () => {
  it('lets the batch accounts spend no more than the batch brought, the owner the whole wallet', async () => {
    const { code, accountIds } = await newBatch(0.1, 2);
    const brought = gbToBytes(0.1);
    const u = await userWithAccount(database.db, GiB);
    await associate(u.userId, code);
    const gw = `gw-${randomUUID().slice(0, 8)}`;
    const first = await reserve(gw, accountIds[0]!, 60n * MiB);
    expect(first).toMatchObject({ grantedBytes: 60n * MiB });
    // The second account shares the cap with the first one's open lease: it may take half of what is left.
    const second = await reserve(gw, accountIds[1]!, 60n * MiB);
    expect(second.grantedBytes).toBe((brought - 60n * MiB) / 2n);
    // Asked again and again, the two take the rest of the cap and nothing beyond it.
    expect(first.grantedBytes + second.grantedBytes + (await drain(gw, accountIds))).toBe(brought);
    // Used bytes stay counted against the cap; returned ones make room again.
    await report(gw, first.leaseId!, 50n * MiB, true);
    expect(await drain(gw, accountIds)).toBe(10n * MiB);
    // The owner's own account is not capped.
    const own = await reserve(gw, u.proxyAccountId, 200n * MiB);
    expect(own.grantedBytes).toBe(200n * MiB);
    await expectLedgerOk(database.db, u.userId);
  });

  it('holds under concurrent reservations for all the batch accounts', async () => {
    const { code, accountIds } = await newBatch(0.1, 4);
    const u = await userWithAccount(database.db, 10n * GiB);
    await associate(u.userId, code);
    const grants = await Promise.all(Array.from({ length: 24 }, (_, i) => reserve(`gw-${i % 3}`, accountIds[i % 4]!, 9n * MiB)));
    const leased = grants.reduce((sum, g) => sum + g.grantedBytes, 0n);
    expect(leased).toBeLessThanOrEqual(gbToBytes(0.1));
    // What the fair shares left is there for the next requests, and not a byte more.
    expect(leased + (await drain('gw-0', accountIds))).toBe(gbToBytes(0.1));
    expect((await userWallet(database.db, u.userId)).credits).toBe(10n * GiB);
  });
});
