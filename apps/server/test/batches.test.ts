import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkUserLedger, credit } from '@proxyhub/api';
import type { CreateBatchInput } from '@proxyhub/core';
import { batches, proxyAccounts } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient, sessionClient } from './credits-helpers';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const balance = async (client: { get: (p: string) => Promise<{ body: unknown }> }) =>
  ((await client.get('/auth/user')).body as { user: { credits: number } }).user.credits;

describe('creating batches (internal tools)', () => {
  it('creates accounts with an allowance of their own under a batch id', async () => {
    const r = await internalClient(server).credits.createBatch.mutate({ accounts: 3, creditsGB: 2.5, usageType: 'shop_proxy_regular' });
    expect(r.batchId).toMatch(/^BT[A-HJKMNP-Z2-9]{18}$/);
    expect(r.accounts).toHaveLength(3);
    for (const a of r.accounts) {
      expect(a.proxyUserId).toMatch(/^[a-z0-9]{10}$/);
      expect(a.proxyPassword).toMatch(/^[A-Za-z0-9]{16}$/);
    }
    const [batch] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, r.batchId));
    expect(batch).toMatchObject({ usageType: 'shop_proxy_regular', creditsBytes: 2684354560n, associatedUserId: null });
    const accounts = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.batchId, batch!.id));
    expect(accounts.map((a) => [a.userId, a.usageType])).toEqual(Array(3).fill([null, 'shop_proxy_regular']));
    // Stored encrypted, shown once to the caller.
    expect(accounts.every((a) => !a.proxyPasswordEnc.includes(r.accounts[0]!.proxyPassword))).toBe(true);
  });

  it('is refused to users and anonymous callers; an admin session may create one', async () => {
    const { client } = await signedInUser(server);
    await expect(sessionClient(server, client).credits.createBatch.mutate({ accounts: 1, creditsGB: 1, usageType: 'shop_proxy_admin' })).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    const anon = server.client();
    const r = await anon.post('/trpc/credits.createBatch', { json: { accounts: 1, creditsGB: 1, usageType: 'shop_proxy_admin' } });
    expect(r.status).toBe(401);
    const admin = await adminClient(server);
    const made = await sessionClient(server, admin).credits.createBatch.mutate({ accounts: 1, creditsGB: 0.1, usageType: 'shop_proxy_admin' });
    expect(made.accounts).toHaveLength(1);
  });

  it('refuses bad input and writes nothing', async () => {
    const before = (await server.deps.db.select().from(batches)).length;
    const internal = internalClient(server);
    // Inputs the schema refuses, typed as what the procedure takes: the server, not the compiler, must refuse them.
    const cases: Array<[CreateBatchInput, string]> = [
      [{ accounts: 0, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be at least 1'],
      [{ accounts: 1001, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be at most 1000'],
      [{ accounts: 1.5, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be a whole number'],
      [{ accounts: 1, creditsGB: 0.05, usageType: 'shop_proxy_regular' }, 'Credits must be at least 0.1 GB'],
      [{ accounts: 1, creditsGB: 'lots' as unknown as number, usageType: 'shop_proxy_regular' }, 'Credits (GB) must be a number'],
      [{ accounts: 1, creditsGB: 1, usageType: 'normal_proxy' as CreateBatchInput['usageType'] }, 'Usage type must be shop_proxy_regular or shop_proxy_admin'],
      [{ accounts: 1, creditsGB: 1 } as CreateBatchInput, 'Usage type must be shop_proxy_regular or shop_proxy_admin'],
    ];
    for (const [input, message] of cases) {
      await expect(internal.credits.createBatch.mutate(input)).rejects.toMatchObject({ message, data: { httpStatus: 400 } });
    }
    expect((await server.deps.db.select().from(batches)).length).toBe(before);
  });
});

describe('associating a batch (POST /auth/process-batch)', () => {
  it('moves the accounts and the remaining allowance to the user, once', async () => {
    const { batchId, accounts } = await internalClient(server).credits.createBatch.mutate({ accounts: 2, creditsGB: 1.5, usageType: 'shop_proxy_admin' });
    const { client, user } = await signedInUser(server);
    const r = await client.post('/auth/process-batch', { batchId: ` ${batchId.toLowerCase()} ` });
    expect(r).toMatchObject({ status: 200, body: { success: true, message: 'Batch associated: 2 proxy accounts and 1536 MB added to your account.' } });
    expect(await balance(client)).toBe(1610612736);
    const owned = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.userId, user.id));
    expect(owned.map((a) => a.proxyUserId).sort()).toEqual([user.proxyUserId, ...accounts.map((a) => a.proxyUserId)].sort());
    const [batch] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, batchId));
    expect(batch).toMatchObject({ associatedUserId: user.id, creditsBytes: 0n });
    // The user's main proxy credentials stay the ones shown by /auth/user.
    const me = (await client.get('/auth/user')).body as { user: { proxyUserId: string } };
    expect(me.user.proxyUserId).toBe(user.proxyUserId);

    expect(await client.post('/auth/process-batch', { batchId })).toMatchObject({
      status: 409,
      body: { error: 'This batch is already associated with your account.' },
    });
    const other = await signedInUser(server);
    expect(await other.client.post('/auth/process-batch', { batchId })).toMatchObject({
      status: 409,
      body: { error: 'This batch has already been associated with an account.' },
    });
    expect(await balance(client)).toBe(1610612736);
    expect(await balance(other.client)).toBe(0);
  });

  it('explains unknown and empty batch ids, and needs a user', async () => {
    const { client } = await signedInUser(server);
    expect(await client.post('/auth/process-batch', { batchId: 'BTNOSUCHBATCH' })).toMatchObject({
      status: 404,
      body: { error: 'Batch not found. Please check the batch ID.' },
    });
    expect(await client.post('/auth/process-batch', { batchId: '  ' })).toMatchObject({ status: 400, body: { error: 'Please enter a batch ID' } });
    expect(await client.post('/auth/process-batch', {})).toMatchObject({ status: 400, body: { error: 'Please enter a batch ID' } });
    expect((await client.post('/auth/process-batch', { batchId: 42 })).status).toBe(400);
    expect((await client.post('/auth/process-batch', { batchId: 'X'.repeat(65) })).status).toBe(400);
    expect((await server.client().post('/auth/process-batch', { batchId: 'BTX' })).status).toBe(401);
  });

  it('is associated once when many users try at the same time', async () => {
    const { batchId } = await internalClient(server).credits.createBatch.mutate({ accounts: 5, creditsGB: 3, usageType: 'shop_proxy_regular' });
    const users: Awaited<ReturnType<typeof signedInUser>>[] = [];
    for (let i = 0; i < 8; i++) users.push(await signedInUser(server));
    const results = await Promise.all(users.flatMap((u) => [u, u, u].map(() => u.client.post('/auth/process-batch', { batchId }))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(results.length - 1);
    const balances = await Promise.all(users.map((u) => balance(u.client)));
    expect(balances.reduce((a, b) => a + b, 0)).toBe(3 * 1073741824);
  });

  it('moves open gateway leases with the accounts, so both wallets stay exact', async () => {
    const MB = 1048576;
    const internal = internalClient(server);
    const { batchId, accounts } = await internal.credits.createBatch.mutate({ accounts: 1, creditsGB: 1, usageType: 'shop_proxy_regular' });
    const [acc] = await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.proxyUserId, accounts[0]!.proxyUserId));
    // The gateway leases from the batch wallet and reports some use before the buyer associates it.
    const lease = await internal.gateway.reserveLease.mutate({ gatewayId: 'gw-batch-test', proxyAccountId: acc!.id, bytes: 100 * MB });
    expect(lease.grantedBytes).toBe(BigInt(100 * MB));
    await internal.gateway.report.mutate({
      gatewayId: 'gw-batch-test',
      seq: 1,
      items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 10 * MB, sessions: 1, release: false }],
    });
    const { client, user } = await signedInUser(server);
    expect((await client.post('/auth/process-batch', { batchId })).status).toBe(200);
    // Remaining Data: the allowance less what was used; the open lease's unused part is still theirs.
    expect(await balance(client)).toBe(1073741824 - 10 * MB);
    expect((await checkUserLedger(server.deps.db, user.id)).ok).toBe(true);
    // After association the rest of the lease is used and returned on the user's side.
    await internal.gateway.report.mutate({
      gatewayId: 'gw-batch-test',
      seq: 2,
      items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 20 * MB, sessions: 1, release: true }],
    });
    expect(await balance(client)).toBe(1073741824 - 30 * MB);
    expect((await checkUserLedger(server.deps.db, user.id)).ok).toBe(true);
    const [b] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, batchId));
    expect(b).toMatchObject({ creditsBytes: 0n, totalUsageBytes: BigInt(10 * MB) });
  });
});

describe('after association a batch spends only what it brought', () => {
  const MB = 1048576;
  const GiB = 1073741824n;
  const GB01 = 107374182n; // 0.1 GB

  async function buyerWithBatch(opts: { accounts: number; creditsGB: number; walletBytes: bigint }) {
    const internal = internalClient(server);
    const made = await internal.credits.createBatch.mutate({ accounts: opts.accounts, creditsGB: opts.creditsGB, usageType: 'shop_proxy_regular' });
    const { client, user } = await signedInUser(server);
    await server.deps.db.transaction((tx) =>
      credit(tx, { wallet: { userId: user.id }, bytes: opts.walletBytes, kind: 'admin_adjustment', sourceKey: `test:${randomUUID()}` }),
    );
    const accountId = async (proxyUserId: string) =>
      (await server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.proxyUserId, proxyUserId)))[0]!.id;
    const [main] = await server.deps.db
      .select()
      .from(proxyAccounts)
      .where(and(eq(proxyAccounts.userId, user.id), eq(proxyAccounts.kind, 'main')));
    return { internal, made, client, user, mainId: main!.id, batchAccountIds: await Promise.all(made.accounts.map((a) => accountId(a.proxyUserId))) };
  }
  const lease = (internal: ReturnType<typeof internalClient>, proxyAccountId: string, bytes: number) =>
    internal.gateway.reserveLease.mutate({ gatewayId: 'gw-cap-test', proxyAccountId, bytes });
  /** Leases for the account until it is refused: the bytes granted in all (shares of a shared wallet add up to it). */
  const drain = async (internal: ReturnType<typeof internalClient>, proxyAccountId: string) => {
    let granted = 0n;
    for (let i = 0; i < 200; i++) {
      const g = await lease(internal, proxyAccountId, 1024 * MB);
      if (g.outcome === 'empty' || g.outcome === 'cap_reached') return granted;
      granted += g.grantedBytes;
    }
    throw new Error('still granting after 200 leases');
  };
  let seq = 0;

  it('leases for the batch accounts together stop at the batch allowance; the main account spends the whole wallet', async () => {
    const { internal, made, client, user, mainId, batchAccountIds } = await buyerWithBatch({ accounts: 2, creditsGB: 0.1, walletBytes: GiB });
    expect((await client.post('/auth/process-batch', { batchId: made.batchId })).status).toBe(200);
    // Remaining Data counts the allowance with the rest of the wallet.
    expect(await balance(client)).toBe(Number(GiB + GB01));
    const [a, b] = batchAccountIds as [string, string];
    const first = await lease(internal, a, 1024 * MB);
    expect(first).toMatchObject({ outcome: 'granted', grantedBytes: GB01 });
    // The wallet still holds a GiB: the batch's limit, not the wallet, refuses them.
    expect(await lease(internal, b, MB)).toMatchObject({ outcome: 'cap_reached', grantedBytes: 0n, leaseId: null });
    expect(await lease(internal, a, MB)).toMatchObject({ outcome: 'cap_reached', grantedBytes: 0n });
    // The main account may use the allowance too (it is in the wallet), and everything else: a lease
    // at a time takes at most half of it while the batch account holds one on the same wallet.
    expect(await lease(internal, mainId, 1024 * MB)).toMatchObject({ outcome: 'granted', grantedBytes: GiB / 2n });
    expect(await drain(internal, mainId)).toBe(GiB / 2n);

    // 30 MB used and the rest returned: the batch accounts may lease the 0.1 GB less those 30 MB.
    await internal.gateway.report.mutate({
      gatewayId: 'gw-cap-test',
      seq: ++seq,
      items: [{ leaseId: first.leaseId!, bytesUp: MB, bytesDown: 29 * MB, sessions: 1, release: true }],
    });
    const [row] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, made.batchId));
    expect(row).toMatchObject({ capBytes: GB01, capUsedBytes: BigInt(30 * MB) });
    expect(await drain(internal, b)).toBe(GB01 - BigInt(30 * MB));
    expect(await lease(internal, a, MB)).toMatchObject({ outcome: 'cap_reached' });
    expect((await checkUserLedger(server.deps.db, user.id)).ok).toBe(true);
  });

  it('the wallet still bounds a batch account when the main account spent it below the allowance', async () => {
    const { internal, made, client, mainId, batchAccountIds } = await buyerWithBatch({ accounts: 1, creditsGB: 1, walletBytes: 0n });
    expect((await client.post('/auth/process-batch', { batchId: made.batchId })).status).toBe(200);
    expect(await lease(internal, mainId, 1000 * MB)).toMatchObject({ grantedBytes: BigInt(1000 * MB) });
    // Half of the 24 MB left at first (the main account holds a lease on the same wallet), then the rest.
    expect(await lease(internal, batchAccountIds[0]!, 1024 * MB)).toMatchObject({ outcome: 'granted', grantedBytes: BigInt(12 * MB) });
    expect(await drain(internal, batchAccountIds[0]!)).toBe(BigInt(12 * MB));
  });

  it('leases open at association are part of what the batch brought', async () => {
    const { internal, made, client, batchAccountIds } = await buyerWithBatch({ accounts: 1, creditsGB: 1, walletBytes: 5n * GiB });
    const [acc] = batchAccountIds as [string];
    const before = await lease(internal, acc, 100 * MB);
    await internal.gateway.report.mutate({
      gatewayId: 'gw-cap-test',
      seq: ++seq,
      items: [{ leaseId: before.leaseId!, bytesUp: 0, bytesDown: 10 * MB, sessions: 1, release: false }],
    });
    expect((await client.post('/auth/process-batch', { batchId: made.batchId })).status).toBe(200);
    const [row] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, made.batchId));
    expect(row).toMatchObject({ capBytes: GiB - BigInt(10 * MB), capUsedBytes: 0n });
    // The open lease holds 90 MB of the cap: 924 MB more can be leased, not a byte of the other 5 GiB.
    expect(await lease(internal, acc, 2048 * MB)).toMatchObject({ grantedBytes: BigInt(924 * MB) });
    // Its use after association counts against the cap; its unused rest frees room again.
    await internal.gateway.report.mutate({
      gatewayId: 'gw-cap-test',
      seq: ++seq,
      items: [{ leaseId: before.leaseId!, bytesUp: 0, bytesDown: 40 * MB, sessions: 1, release: true }],
    });
    const [after] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, made.batchId));
    expect(after!.capUsedBytes).toBe(BigInt(40 * MB));
    expect(await lease(internal, acc, 2048 * MB)).toMatchObject({ grantedBytes: BigInt(50 * MB) });
    expect(await lease(internal, acc, MB)).toMatchObject({ outcome: 'cap_reached' });
  });
});
