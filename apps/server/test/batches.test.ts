import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkUserLedger } from '@proxyhub/api';
import { batches, proxyAccounts } from '@proxyhub/db';
import { adminClient, expectLedgerOk, internalClient, sessionClient } from './credits-helpers';
import { signedInUser, startTestServer, type TestServer } from './helpers';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => expectLedgerOk(server));

const balance = async (client: { get: (p: string) => Promise<{ body: unknown }> }) => ((await client.get('/auth/user')).body as { user: { credits: number } }).user.credits;

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
    const cases: Array<[unknown, string]> = [
      [{ accounts: 0, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be at least 1'],
      [{ accounts: 1001, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be at most 1000'],
      [{ accounts: 1.5, creditsGB: 1, usageType: 'shop_proxy_regular' }, 'Accounts must be a whole number'],
      [{ accounts: 1, creditsGB: 0.05, usageType: 'shop_proxy_regular' }, 'Credits must be at least 0.1 GB'],
      [{ accounts: 1, creditsGB: 'lots', usageType: 'shop_proxy_regular' }, 'Credits (GB) must be a number'],
      [{ accounts: 1, creditsGB: 1, usageType: 'normal_proxy' }, 'Usage type must be shop_proxy_regular or shop_proxy_admin'],
      [{ accounts: 1, creditsGB: 1 }, 'Usage type must be shop_proxy_regular or shop_proxy_admin'],
    ];
    for (const [input, message] of cases) {
      await expect(internal.credits.createBatch.mutate(input as never)).rejects.toMatchObject({ message, data: { httpStatus: 400 } });
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

    expect(await client.post('/auth/process-batch', { batchId })).toMatchObject({ status: 409, body: { error: 'This batch is already associated with your account.' } });
    const other = await signedInUser(server);
    expect(await other.client.post('/auth/process-batch', { batchId })).toMatchObject({ status: 409, body: { error: 'This batch has already been associated with an account.' } });
    expect(await balance(client)).toBe(1610612736);
    expect(await balance(other.client)).toBe(0);
  });

  it('explains unknown and empty batch ids, and needs a user', async () => {
    const { client } = await signedInUser(server);
    expect(await client.post('/auth/process-batch', { batchId: 'BTNOSUCHBATCH' })).toMatchObject({ status: 404, body: { error: 'Batch not found. Please check the batch ID.' } });
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
    await internal.gateway.report.mutate({ gatewayId: 'gw-batch-test', seq: 1, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 10 * MB, sessions: 1, release: false }] });
    const { client, user } = await signedInUser(server);
    expect((await client.post('/auth/process-batch', { batchId })).status).toBe(200);
    // Remaining Data: the allowance less what was used; the open lease's unused part is still theirs.
    expect(await balance(client)).toBe(1073741824 - 10 * MB);
    expect((await checkUserLedger(server.deps.db, user.id)).ok).toBe(true);
    // After association the rest of the lease is used and returned on the user's side.
    await internal.gateway.report.mutate({ gatewayId: 'gw-batch-test', seq: 2, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 20 * MB, sessions: 1, release: true }] });
    expect(await balance(client)).toBe(1073741824 - 30 * MB);
    expect((await checkUserLedger(server.deps.db, user.id)).ok).toBe(true);
    const [b] = await server.deps.db.select().from(batches).where(eq(batches.batchCode, batchId));
    expect(b).toMatchObject({ creditsBytes: 0n, totalUsageBytes: BigInt(10 * MB) });
  });
});
