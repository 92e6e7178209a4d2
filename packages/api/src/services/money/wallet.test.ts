import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '@proxyhub/auth';
import { gbToBytes } from '@proxyhub/core';
import { addCredits, batchRow, fileDatabase, GiB, MiB } from '../../../test/fixtures';
import { createAccount, getUserView, rotateProxyPassword } from '../accounts/users';
import { createBatch, processBatch } from '../accounts/batches';
import { readFunds, spendable } from './caps';
import { createCodes, redeemCode } from './topup-codes';
import { authorizeProxyAccount } from '../gateway/gateway-auth';
import { applyGatewayReport, reserveLease } from '../gateway/leases';
import { listUsers } from '../admin/user-list';
import { findAccountWallet, walletRemaining } from './wallet';

const database = fileDatabase();
const secrets = new SecretBox('service-test-secret-0123456789abcdef');
const gateway = () => `gw-${randomUUID().slice(0, 8)}`;

/** A user as registration makes one (encrypted proxy password, API key), with `bytes` of credit. */
async function user(bytes: bigint) {
  const email = `w-${randomUUID().slice(0, 8)}@example.com`;
  const u = await database.db.transaction((tx) => createAccount(tx, secrets, { email, name: 'Wallet Test', passwordHash: null, emailVerified: true }));
  const { proxyPassword } = await rotateProxyPassword(database.db, secrets, u.id);
  if (bytes > 0n) await addCredits(database.db, u.id, bytes);
  const view = await getUserView(database.db, secrets, u.id);
  return { userId: u.id, email, proxyUserId: view.proxyUserId, proxyPassword };
}

async function authorize(proxyUserId: string, password: string) {
  const { account } = await authorizeProxyAccount(database.db, secrets, { proxyUserId, password });
  if (!account.ok) throw new Error(account.message);
  return account;
}

/** What the spending rule lets an account lease now (a lease would grant up to this). */
async function mayLease(proxyAccountId: string) {
  const acc = (await findAccountWallet(database.db, proxyAccountId))!;
  return spendable(acc, await readFunds(database.db, [acc], { lock: false }));
}

/** Remaining as each reader tells it: the session, the admin list. */
async function readers(u: Awaited<ReturnType<typeof user>>) {
  const { users } = await listUsers(database.db, { search: u.email });
  return {
    session: (await getUserView(database.db, secrets, u.userId)).credits,
    adminList: users[0]!.remainingBytes,
  };
}

const everywhere = (bytes: bigint) => ({ session: bytes, adminList: bytes });

describe('remaining: one number for every reader', () => {
  it('counts bytes a gateway holds in an open lease, also in the answer to a redeem', async () => {
    const u = await user(GiB);
    const { proxyAccountId } = await authorize(u.proxyUserId, u.proxyPassword);
    const gw = gateway();
    const lease = await database.db.transaction((tx) => reserveLease(tx, { gatewayId: gw, proxyAccountId, bytes: Number(100n * MiB) }));
    expect(lease.grantedBytes).toBe(100n * MiB);
    expect(await readers(u)).toEqual(everywhere(GiB));

    const [code] = await database.db.transaction((tx) =>
      createCodes(tx, { creditsGB: 0.5, quantity: 1, expiresAt: null, createdByAdminId: null, createdBy: 'test' }),
    );
    const redeemed = await database.db.transaction((tx) => redeemCode(tx, { userId: u.userId, code: code!.code }));
    expect(redeemed.remainingBytes).toBe(GiB + gbToBytes(0.5));
    expect(await readers(u)).toEqual(everywhere(GiB + gbToBytes(0.5)));

    // What the gateway reports as used leaves; what it returns was counted all along.
    const report = { gatewayId: gw, seq: 1, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: Number(30n * MiB), sessions: 1, release: true }] };
    await database.db.transaction((tx) => applyGatewayReport(tx, report));
    expect(await readers(u)).toEqual(everywhere(GiB + gbToBytes(0.5) - 30n * MiB));
  });

  it("is a batch's allowance before association, leases included; after it a batch account's is bounded by the cap", async () => {
    const made = await database.db.transaction((tx) => createBatch(tx, secrets, { accounts: 1, creditsGB: 0.1, usageType: 'shop_proxy_regular' }));
    const brought = gbToBytes(0.1);
    const shop = made.accounts[0]!;
    const { proxyAccountId } = await authorize(shop.proxyUserId, shop.proxyPassword);
    const gw = gateway();
    await database.db.transaction((tx) => reserveLease(tx, { gatewayId: gw, proxyAccountId, bytes: Number(60n * MiB) }));
    expect(await mayLease(proxyAccountId)).toMatchObject({ ok: true, bytes: brought - 60n * MiB });
    const batchId = (await batchRow(database.db, made.batchId)).id;
    expect(await walletRemaining(database.db, { batchId })).toBe(brought);

    const buyer = await user(GiB);
    await database.db.transaction((tx) => processBatch(tx, { userId: buyer.userId, batchId: made.batchId }));
    expect(await walletRemaining(database.db, { batchId })).toBe(0n);
    expect(await readers(buyer)).toEqual(everywhere(GiB + brought));
    // The batch account may spend what the batch brought, not the buyer's whole wallet.
    expect(await mayLease(proxyAccountId)).toMatchObject({ ok: true, bytes: brought - 60n * MiB });
  });
});
