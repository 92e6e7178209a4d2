import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger, reconcileExpiredLeases, LEASE_TTL_MS } from '@proxyhub/api';
import { MAX_GATEWAY_BATCH } from '@proxyhub/core';
import { connectionLog } from '@proxyhub/db';
import { createBackend, isRejectedInput, type Backend } from '../src/backend';
import { encodeRecord, sealRows, type RecordJson } from '../src/connection-log/row-batch';
import {
  balances,
  curl,
  expectLedgerHolds,
  hourlyUsage,
  INTERNAL_KEY,
  internalClient,
  promSample,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type ProxyUser,
  type TestServer,
} from './helpers';

const MiB = 1024 * 1024;
let server: TestServer;
let api: Backend;

beforeAll(async () => {
  server = await startTestServer();
  api = createBackend(server.url, INTERNAL_KEY);
});
afterAll(() => server?.close());

async function accountOf(u: ProxyUser): Promise<string> {
  const r = await api.authorize({ proxyUserId: u.proxyUserId, password: u.proxyPassword });
  if (!r.account.ok) throw new Error('authorize failed');
  return r.account.proxyAccountId;
}

describe('gateway.* procedures (internal key)', () => {
  it('refuse callers without the internal key', async () => {
    const outsider = createBackend(server.url, 'not-the-key');
    await expect(outsider.authorize({ proxyUserId: 'abcdef1234', password: 'x' })).rejects.toThrow(/Internal key required/);
    await expect(outsider.reserveLease({ gatewayId: 'g', proxyAccountId: randomUUID(), bytes: 1 })).rejects.toThrow(/Internal key required/);
  });

  it('answer a report put together from sealed rows, and refuse a bad one as input the gateway must not resend', async () => {
    const u = await userWithCredits(server, 4n * BigInt(MiB));
    const id = await accountOf(u);
    const lease = await api.reserveLease({ gatewayId: 'gw-rows', proxyAccountId: id, bytes: MiB });
    const now = Date.now();
    const row = (n: number, up: number) =>
      encodeRecord({
        id: randomUUID(),
        startedAt: now - n,
        endedAt: now,
        protocol: 'http',
        target: 'example.com:80',
        proxyUserId: u.proxyUserId,
        proxyAccountId: id,
        country: '',
        state: '',
        city: '',
        session: 'rotating',
        bytesUp: up,
        bytesDown: 0,
        billedBytes: up,
        outcome: 'ok',
        reason: '',
        exitIp: '',
      });
    const items = [{ leaseId: lease.leaseId!, bytesUp: 300, bytesDown: 0, sessions: 0, release: false }];
    const rows = [sealRows([row(1, 100), row(2, 100)]), sealRows([row(3, 100)])];
    expect(await api.report({ gatewayId: 'gw-rows', seq: 1, items, rows })).toEqual({ applied: true, dropped: [] });
    const stored = await server.database.db.select({ billed: connectionLog.billedBytes }).from(connectionLog).where(eq(connectionLog.proxyAccountId, id));
    expect(stored.map((r) => Number(r.billed))).toEqual([100, 100, 100]);
    // One field past the last (the ASN): refused.
    const bad = sealRows([`${row(4, 100).slice(0, -1)},"90012","7922","extra"]` as RecordJson]);
    const refused = await api.report({ gatewayId: 'gw-rows', seq: 2, items: [], rows: [bad] }).catch((err: unknown) => err);
    expect(isRejectedInput(refused)).toBe(true);
  });

  it('authorize tells good credentials, bad ones and unknown locations apart', async () => {
    const u = await userWithCredits(server, 5n * BigInt(MiB));
    const ok = await api.authorize({ proxyUserId: u.proxyUserId, password: u.proxyPassword, location: { country: 'US', state: 'CA' } });
    // What the account may spend is a lease's answer, not the login's.
    expect(ok).toEqual({
      account: {
        ok: true,
        proxyAccountId: expect.any(String),
        usageType: 'normal_proxy',
        allowlist: [],
        maxConnections: null,
        targetPolicyExempt: false,
        rotations: [],
      },
      locationKnown: true,
    });
    const bad = await api.authorize({ proxyUserId: u.proxyUserId, password: 'nope', location: { country: 'ZZ' } });
    expect(bad).toEqual({ account: { ok: false, reason: 'bad_credentials', message: 'Invalid proxy username or password' }, locationKnown: false });
    const nobody = await api.authorize({ proxyUserId: 'nosuchuser1', password: 'x' });
    expect(nobody.account.ok).toBe(false);
  });

  it('authorizeMany answers a mixed batch in the order asked, exactly as authorize does one by one', async () => {
    const rich = await userWithCredits(server, 5n * BigInt(MiB));
    const poor = await userWithCredits(server, 0n);
    const items = [
      { proxyUserId: rich.proxyUserId, password: rich.proxyPassword, location: { country: 'US', state: 'CA' } },
      { proxyUserId: rich.proxyUserId, password: 'wrong' },
      { proxyUserId: 'nosuchuser1', password: 'x', location: { country: 'ZZ' } },
      { proxyUserId: poor.proxyUserId, password: poor.proxyPassword },
      { proxyUserId: rich.proxyUserId, password: rich.proxyPassword, location: { country: 'ZZ' } },
    ];
    const { answers } = await internalClient(server).gateway.authorizeMany.mutate({ items });
    expect(answers).toHaveLength(items.length);
    for (const [i, item] of items.entries()) expect(answers[i]).toEqual(await internalClient(server).gateway.authorize.mutate(item));
    expect(answers.map((a) => [a.account.ok, a.locationKnown])).toEqual([
      [true, true],
      [false, null],
      [false, false],
      [true, null],
      [true, false],
    ]);
  });

  it('authorize with a lease reserves the first lease for a login that goes through, and for no other', async () => {
    const rich = await userWithCredits(server, 5n * BigInt(MiB));
    const poor = await userWithCredits(server, 0n);
    const lease = { gatewayId: `g-${randomUUID().slice(0, 8)}`, bytes: MiB };
    const { answers } = await internalClient(server).gateway.authorizeMany.mutate({
      items: [
        { proxyUserId: rich.proxyUserId, password: rich.proxyPassword, location: { country: 'US' }, lease },
        { proxyUserId: rich.proxyUserId, password: 'wrong', lease },
        { proxyUserId: rich.proxyUserId, password: rich.proxyPassword, location: { country: 'ZZ' }, lease },
        { proxyUserId: poor.proxyUserId, password: poor.proxyPassword, lease },
        { proxyUserId: rich.proxyUserId, password: rich.proxyPassword },
      ],
    });
    expect(answers[0]!.lease).toEqual({ outcome: 'granted', leaseId: expect.any(String), grantedBytes: BigInt(MiB) });
    expect(answers[1]!.lease).toBeNull();
    expect(answers[2]!.lease).toBeNull();
    expect(answers[3]!.lease).toMatchObject({ outcome: 'empty', leaseId: null, grantedBytes: 0n });
    expect(answers[4]).not.toHaveProperty('lease');
    // The lease is the gateway's like any other: credits moved into it, what is left unchanged.
    expect(await balances(rich)).toEqual({ credits: 5n * BigInt(MiB), usage: 0n });
    const released = await api.releaseLeases({ gatewayId: lease.gatewayId, leaseIds: [answers[0]!.lease!.leaseId!] });
    expect(released).toMatchObject({ released: 1 });
    await expectLedgerHolds(server, rich.userId);
  });

  it('reserveLeases grants in the order asked, and refuses an empty or oversized batch with a 400', async () => {
    const u = await userWithCredits(server, 5n * BigInt(MiB));
    const id = await accountOf(u);
    const trpc = internalClient(server);
    const { grants } = await trpc.gateway.reserveLeases.mutate({ gatewayId: 'gw-many', items: [3, 3, 3].map(() => ({ proxyAccountId: id, bytes: 3 * MiB })) });
    expect(grants.map((g) => [g.outcome, g.grantedBytes])).toEqual([
      ['granted', 3n * BigInt(MiB)],
      ['granted', 2n * BigInt(MiB)],
      ['empty', 0n],
    ]);
    await expect(trpc.gateway.reserveLeases.mutate({ gatewayId: 'gw-many', items: [] })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    const tooMany = Array.from({ length: MAX_GATEWAY_BATCH + 1 }, () => ({ proxyAccountId: id, bytes: 1 }));
    await expect(trpc.gateway.reserveLeases.mutate({ gatewayId: 'gw-many', items: tooMany })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    await expect(trpc.gateway.authorizeMany.mutate({ items: [] })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    expect((await expectLedgerHolds(server, u.userId)).leased).toBe(5n * BigInt(MiB));
    await api.releaseLeases({ gatewayId: 'gw-many' });
  });

  it('logins and lease requests made at once reach the server as a few batched calls', async () => {
    const users = await Promise.all(Array.from({ length: 40 }, () => userWithCredits(server, BigInt(MiB))));
    const calls = async () =>
      promSample(await fetch(`${server.url}/metrics`).then((r) => r.text()), 'http_requests_total', { route: '/trpc/:path', method: 'POST', status: '200' }) ??
      0;
    const before = await calls();
    const answers = await Promise.all(users.flatMap((u) => [1, 2, 3].map(() => api.authorize({ proxyUserId: u.proxyUserId, password: u.proxyPassword }))));
    const ids = answers.map((a) => (a.account.ok ? a.account.proxyAccountId : ''));
    expect(ids.every(Boolean)).toBe(true);
    const grants = await Promise.all(ids.map((proxyAccountId) => api.reserveLease({ gatewayId: 'gw-gathered', proxyAccountId, bytes: MiB / 2 })));
    // 120 logins and 120 lease requests: a batch with the server, the rest gathered behind it.
    expect((await calls()) - before).toBeLessThanOrEqual(6);
    // Each account's 1 MiB went to its first two requests; the third found the wallet empty.
    expect(grants.filter((g) => g.outcome === 'granted')).toHaveLength(80);
    expect(grants.reduce((n, g) => n + g.grantedBytes, 0n)).toBe(40n * BigInt(MiB));
    await api.releaseLeases({ gatewayId: 'gw-gathered' });
  });

  it('leases never exceed the balance, even under 20 concurrent reservations', async () => {
    const u = await userWithCredits(server, 5n * BigInt(MiB));
    const id = await accountOf(u);
    const grants = await Promise.all(Array.from({ length: 20 }, () => api.reserveLease({ gatewayId: 'gw-a', proxyAccountId: id, bytes: MiB })));
    const granted = grants.reduce((n, g) => n + g.grantedBytes, 0n);
    expect(granted).toBe(5n * BigInt(MiB));
    expect(grants.filter((g) => g.outcome === 'empty')).toHaveLength(15);
    // The wallet is drained into leases; Remaining Data still counts leased bytes as the user's.
    const ledger = await expectLedgerHolds(server, u.userId);
    expect(ledger.credits).toBe(0n);
    expect(ledger.leased).toBe(5n * BigInt(MiB));
    expect((await balances(u)).credits).toBe(5n * BigInt(MiB));
    await api.releaseLeases({ gatewayId: 'gw-a' });
    expect(await balances(u)).toEqual({ credits: 5n * BigInt(MiB), usage: 0n });
  });

  it('applies a report once per (gateway, seq), never beyond the lease, and settles the rest on release', async () => {
    const u = await userWithCredits(server, 4n * BigInt(MiB));
    const id = await accountOf(u);
    const lease = await api.reserveLease({ gatewayId: 'gw-b', proxyAccountId: id, bytes: MiB });
    const leaseId = lease.leaseId!;
    const report = { gatewayId: 'gw-b', seq: 1, items: [{ leaseId, bytesUp: 1000, bytesDown: 200_000, sessions: 2, release: false }] };
    expect(await api.report(report)).toEqual({ applied: true, dropped: [] });
    expect(await api.report(report)).toEqual({ applied: false, dropped: [] });
    expect(await hourlyUsage(server, u.userId)).toEqual({ up: 1000, down: 200_000, sessions: 2 });
    expect((await balances(u)).usage).toBe(201_000n);
    await expectLedgerHolds(server, u.userId);

    // Release: the unused part of the lease goes back.
    await api.report({ gatewayId: 'gw-b', seq: 2, items: [{ leaseId, bytesUp: 0, bytesDown: 48_576, sessions: 0, release: true }] });
    expect(await balances(u)).toEqual({ credits: 4n * BigInt(MiB) - 249_576n, usage: 249_576n });
    const ledger = await expectLedgerHolds(server, u.userId);
    expect(ledger.leased).toBe(0n);
    // A report on a settled lease: dropped, so the gateway forgets it; the ledger still holds.
    const late = await api.report({ gatewayId: 'gw-b', seq: 3, items: [{ leaseId, bytesUp: 10, bytesDown: 0, sessions: 0, release: false }] });
    expect(late.dropped).toEqual([leaseId]);
    await expectLedgerHolds(server, u.userId);
    // Another gateway cannot report on this gateway's lease.
    const foreign = await api.report({ gatewayId: 'gw-other', seq: 1, items: [{ leaseId, bytesUp: 10, bytesDown: 0, sessions: 0, release: false }] });
    expect(foreign.dropped).toEqual([leaseId]);
    await expectLedgerHolds(server, u.userId);

    // A gateway reporting past its lease (it cannot, but the server must not trust that): the lease
    // is used up, the excess comes out of the balance as far as it goes, and the ledger holds.
    const small = await api.reserveLease({ gatewayId: 'gw-b', proxyAccountId: id, bytes: 1000 });
    const before = await balances(u);
    await api.report({ gatewayId: 'gw-b', seq: 4, items: [{ leaseId: small.leaseId!, bytesUp: 0, bytesDown: 1500, sessions: 0, release: true }] });
    const after = await balances(u);
    expect(after.usage - before.usage).toBe(1500n);
    // Remaining Data (wallet + open leases) falls by exactly what was used: the 1000-byte lease
    // and 500 bytes of excess taken from the wallet.
    expect(before.credits - after.credits).toBe(1500n);
    await expectLedgerHolds(server, u.userId);
  });

  it('reconciles the leases of a gateway that stopped reporting', async () => {
    const u = await userWithCredits(server, 3n * BigInt(MiB));
    const id = await accountOf(u);
    const lease = await api.reserveLease({ gatewayId: 'gw-crashed', proxyAccountId: id, bytes: 2 * MiB });
    await api.report({ gatewayId: 'gw-crashed', seq: 1, items: [{ leaseId: lease.leaseId!, bytesUp: 0, bytesDown: 1000, sessions: 1, release: false }] });
    expect((await reconcileExpiredLeases(server.database.db)).released).toBe(0); // still fresh
    const later = new Date(Date.now() + LEASE_TTL_MS + 1000);
    const r = await reconcileExpiredLeases(server.database.db, later);
    expect(r.released).toBeGreaterThanOrEqual(1);
    expect(await balances(u)).toEqual({ credits: 3n * BigInt(MiB) - 1000n, usage: 1000n });
    expect((await checkLedger(server.database.db)).ok).toBe(true);
  });

  it('a gateway shut down gracefully returns every unused leased byte', async () => {
    const target = await startTarget();
    const gw = await startGateway(server);
    try {
      const u = await userWithCredits(server, 100n * BigInt(MiB));
      const port = (gw.server.address() as { port: number }).port;
      const r = await curl([
        '-x',
        `http://127.0.0.1:${port}`,
        '-U',
        `${u.username()}:${u.proxyPassword}`,
        '-o',
        '/dev/null',
        `${target.url}/download?bytes=${MiB}`,
      ]);
      expect(r.status).toBe(200);
      expect(gw.stats().heldBytes).toBeGreaterThan(0);
      await gw.close();
      const b = await balances(u);
      expect(b.usage).toBeGreaterThan(BigInt(MiB));
      expect(b.credits + b.usage).toBe(100n * BigInt(MiB));
      const ledger = await expectLedgerHolds(server, u.userId);
      expect(ledger.leased).toBe(0n);
    } finally {
      await gw.close();
      await target.close();
    }
  });
});
