import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { gatewayLeases, proxyAccounts, users } from '@proxyhub/db';
import { expectLedgerOk, fileDatabase, MiB, userWallet, userWithAccount } from '../../../test/fixtures';
import { readFunds, spendable } from '../money/caps';
import { userUsageTotals } from '../usage/usage-counts';
import { findAccountWallet } from '../money/wallet';
import { applyGatewayReport, LEASE_TTL_MS, MAX_LEASE_BYTES, reconcileExpiredLeases, releaseLeases, reserveLease, reserveLeases } from './leases';

const database = fileDatabase();

const gateway = () => `gw-${randomUUID().slice(0, 8)}`;
const reserve = (gatewayId: string, proxyAccountId: string, bytes: bigint) =>
  database.db.transaction((tx) => reserveLease(tx, { gatewayId, proxyAccountId, bytes: Number(bytes) }));

let seq = 0;
/** One report of one lease's traffic, with a fresh sequence number unless given. */
const report = (gatewayId: string, leaseId: string, down: bigint, opts: { up?: bigint; release?: boolean; seq?: number } = {}) =>
  database.db.transaction((tx) =>
    applyGatewayReport(tx, {
      gatewayId,
      seq: opts.seq ?? ++seq,
      items: [{ leaseId, bytesUp: Number(opts.up ?? 0n), bytesDown: Number(down), sessions: 1, release: opts.release ?? false }],
    }),
  );

const leaseRow = async (id: string) => (await database.db.select().from(gatewayLeases).where(eq(gatewayLeases.id, id)))[0]!;

describe('reserving a lease', () => {
  it('moves the granted bytes from the wallet into an open lease', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const gw = gateway();
    const grant = await reserve(gw, u.proxyAccountId, 30n * MiB);
    expect(grant).toMatchObject({ outcome: 'granted', grantedBytes: 30n * MiB });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 70n * MiB, usage: 0n });
    expect(await leaseRow(grant.leaseId!)).toMatchObject({
      gatewayId: gw,
      proxyAccountId: u.proxyAccountId,
      grantedBytes: 30n * MiB,
      usedBytes: 0n,
      settledAt: null,
    });
    await expectLedgerOk(database.db, u.userId);
  });

  it('grants no more than the wallet holds, nor more than one lease may hold', async () => {
    const small = await userWithAccount(database.db, 10n * MiB);
    expect(await reserve(gateway(), small.proxyAccountId, 50n * MiB)).toMatchObject({ outcome: 'granted', grantedBytes: 10n * MiB });
    const rich = await userWithAccount(database.db, MAX_LEASE_BYTES * 3n);
    expect(await reserve(gateway(), rich.proxyAccountId, MAX_LEASE_BYTES * 2n)).toMatchObject({
      grantedBytes: MAX_LEASE_BYTES,
    });
  });

  it('grants nothing from an empty wallet, to an unknown account or a disabled one', async () => {
    const empty = await userWithAccount(database.db);
    expect(await reserve(gateway(), empty.proxyAccountId, MiB)).toEqual({ leaseId: null, grantedBytes: 0n, outcome: 'empty' });
    expect(await reserve(gateway(), randomUUID(), MiB)).toMatchObject({ leaseId: null, grantedBytes: 0n, outcome: 'unknown_account' });
    const off = await userWithAccount(database.db, MiB);
    await database.db.update(proxyAccounts).set({ disabledAt: new Date() }).where(eq(proxyAccounts.id, off.proxyAccountId));
    expect(await reserve(gateway(), off.proxyAccountId, MiB)).toMatchObject({ grantedBytes: 0n, outcome: 'disabled' });
    const banned = await userWithAccount(database.db, MiB);
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, banned.userId));
    expect(await reserve(gateway(), banned.proxyAccountId, MiB)).toMatchObject({ grantedBytes: 0n, outcome: 'disabled' });
    expect((await userWallet(database.db, banned.userId)).credits).toBe(MiB);
  });

  it('never leases the same byte twice under 20 concurrent reservations from several gateways', async () => {
    const u = await userWithAccount(database.db, 50n * MiB);
    const gws = [gateway(), gateway(), gateway()];
    const grants = await Promise.all(Array.from({ length: 20 }, (_, i) => reserve(gws[i % 3]!, u.proxyAccountId, 7n * MiB)));
    expect(grants.reduce((sum, g) => sum + g.grantedBytes, 0n)).toBe(50n * MiB);
    expect(grants.filter((g) => g.outcome === 'granted')).toHaveLength(8);
    expect((await userWallet(database.db, u.userId)).credits).toBe(0n);
  });
});

describe('the spending rule', () => {
  /** What the rule answers for an account, from its rows as they are now. */
  const rule = async (proxyAccountId: string) => {
    const acc = (await findAccountWallet(database.db, proxyAccountId))!;
    return spendable(acc, await readFunds(database.db, [acc], { lock: false }));
  };

  it('says what an account may lease and, when nothing, why: an empty wallet, a reached cap, a suspension, a disabled account', async () => {
    const rich = await userWithAccount(database.db, 10n * MiB);
    expect(await rule(rich.proxyAccountId)).toMatchObject({ ok: true, bytes: 10n * MiB });
    expect(await rule((await userWithAccount(database.db)).proxyAccountId)).toEqual({ ok: false, reason: 'wallet_empty' });

    // At its cap while the wallet holds 10 MiB: a top-up would not help, so that is not what it says.
    const capped = await userWithAccount(database.db, 10n * MiB);
    await database.db.update(proxyAccounts).set({ capBytes: MiB, usedBytes: MiB }).where(eq(proxyAccounts.id, capped.proxyAccountId));
    expect(await rule(capped.proxyAccountId)).toEqual({ ok: false, reason: 'cap_reached' });
    expect(await reserve(gateway(), capped.proxyAccountId, MiB)).toMatchObject({ grantedBytes: 0n, outcome: 'cap_reached' });

    const suspended = await userWithAccount(database.db, MiB);
    await database.db.update(users).set({ disabledAt: new Date() }).where(eq(users.id, suspended.userId));
    expect(await rule(suspended.proxyAccountId)).toEqual({ ok: false, reason: 'suspended' });
    const off = await userWithAccount(database.db, MiB);
    await database.db.update(proxyAccounts).set({ disabledAt: new Date() }).where(eq(proxyAccounts.id, off.proxyAccountId));
    expect(await rule(off.proxyAccountId)).toEqual({ ok: false, reason: 'disabled' });
  });
});

describe('reserving many leases at once', () => {
  it('grants each item in order as one by one would, in one transaction, within wallets and caps', async () => {
    const a = await userWithAccount(database.db, 10n * MiB);
    const b = await userWithAccount(database.db, 4n * MiB);
    const off = await userWithAccount(database.db, 4n * MiB);
    await database.db
      .update(proxyAccounts)
      .set({ capBytes: 5n * MiB })
      .where(eq(proxyAccounts.id, a.proxyAccountId));
    await database.db.update(proxyAccounts).set({ disabledAt: new Date() }).where(eq(proxyAccounts.id, off.proxyAccountId));
    const gw = gateway();
    const ask = [a, b, a, b, { proxyAccountId: randomUUID() }, off, a, b].map((u) => ({ proxyAccountId: u.proxyAccountId, bytes: Number(3n * MiB) }));
    const grants = await database.db.transaction((tx) => reserveLeases(tx, { gatewayId: gw, items: ask }));
    expect(grants.map((g) => [g.outcome, g.grantedBytes])).toEqual([
      ['granted', 3n * MiB], // a's cap of 5 MiB leaves 2
      ['granted', 3n * MiB],
      ['granted', 2n * MiB], // the rest of a's cap, though a's wallet holds more
      ['granted', 1n * MiB], // the rest of b's wallet
      ['unknown_account', 0n],
      ['disabled', 0n],
      ['cap_reached', 0n], // a's wallet still holds 5 MiB: its limit, not its wallet, says no
      ['empty', 0n],
    ]);
    for (const g of grants.slice(0, 4))
      expect(await leaseRow(g.leaseId!)).toMatchObject({ gatewayId: gw, grantedBytes: g.grantedBytes, usedBytes: 0n, settledAt: null });
    expect(await userWallet(database.db, a.userId)).toEqual({ credits: 5n * MiB, usage: 0n });
    expect(await userWallet(database.db, b.userId)).toEqual({ credits: 0n, usage: 0n });
    expect(await userWallet(database.db, off.userId)).toEqual({ credits: 4n * MiB, usage: 0n });
  });

  it('never leases the same byte twice when batches for one wallet race', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const batch = () =>
      database.db.transaction((tx) =>
        reserveLeases(tx, { gatewayId: gateway(), items: Array.from({ length: 5 }, () => ({ proxyAccountId: u.proxyAccountId, bytes: Number(MiB) })) }),
      );
    const all = (await Promise.all(Array.from({ length: 4 }, batch))).flat();
    expect(all.reduce((n, g) => n + g.grantedBytes, 0n)).toBe(10n * MiB);
    expect(all.filter((g) => g.outcome === 'empty')).toHaveLength(10);
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 0n, usage: 0n });
  });
});

describe('reporting usage', () => {
  it('counts reported bytes as usage out of the lease, once per gateway and sequence number', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const gw = gateway();
    const { leaseId } = await reserve(gw, u.proxyAccountId, 40n * MiB);
    expect(await report(gw, leaseId!, 10n * MiB, { up: 2n * MiB, seq: 1 })).toEqual({ applied: true, dropped: [] });
    expect(await report(gw, leaseId!, 10n * MiB, { up: 2n * MiB, seq: 1 })).toEqual({ applied: false, dropped: [] });
    expect(await leaseRow(leaseId!)).toMatchObject({ grantedBytes: 40n * MiB, usedBytes: 12n * MiB, settledAt: null });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 60n * MiB, usage: 12n * MiB });
    expect(await userUsageTotals(database.db, u.userId)).toMatchObject({ bytesUp: 2n * MiB, bytesDown: 10n * MiB, sessions: 1 });
    await expectLedgerOk(database.db, u.userId);
  });

  it('settles a released lease: what was not used goes back to the wallet', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const gw = gateway();
    const { leaseId } = await reserve(gw, u.proxyAccountId, 40n * MiB);
    await report(gw, leaseId!, 15n * MiB, { release: true });
    expect(await leaseRow(leaseId!)).toMatchObject({ usedBytes: 15n * MiB, settledAt: expect.any(Date) });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 85n * MiB, usage: 15n * MiB });
    // Later traffic on a settled lease is dropped from the gateway's view, and paid from the wallet.
    expect(await report(gw, leaseId!, 5n * MiB)).toEqual({ applied: true, dropped: [leaseId] });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 80n * MiB, usage: 20n * MiB });
  });

  it('charges bytes beyond the lease to the wallet only as far as it goes', async () => {
    const u = await userWithAccount(database.db, 30n * MiB);
    const gw = gateway();
    const { leaseId } = await reserve(gw, u.proxyAccountId, 20n * MiB);
    await report(gw, leaseId!, 50n * MiB);
    expect(await leaseRow(leaseId!)).toMatchObject({ grantedBytes: 20n * MiB, usedBytes: 20n * MiB });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 0n, usage: 30n * MiB });
  });

  it("ignores another gateway's report for a lease it does not hold", async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const gw = gateway();
    const { leaseId } = await reserve(gw, u.proxyAccountId, 10n * MiB);
    expect(await report(gateway(), leaseId!, 5n * MiB, { release: true })).toEqual({ applied: true, dropped: [leaseId] });
    expect(await leaseRow(leaseId!)).toMatchObject({ usedBytes: 0n, settledAt: null });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 0n, usage: 0n });
  });
});

describe('settling leases', () => {
  it("returns a gateway's unused bytes when it releases its leases", async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const gw = gateway();
    const a = await reserve(gw, u.proxyAccountId, 30n * MiB);
    const b = await reserve(gw, u.proxyAccountId, 20n * MiB);
    const elsewhere = await reserve(gateway(), u.proxyAccountId, 10n * MiB);
    await report(gw, a.leaseId!, 5n * MiB);
    expect(await database.db.transaction((tx) => releaseLeases(tx, { gatewayId: gw }))).toEqual({ released: 2, returnedBytes: 45n * MiB });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 85n * MiB, usage: 5n * MiB });
    expect(await leaseRow(b.leaseId!)).toMatchObject({ settledAt: expect.any(Date) });
    expect(await leaseRow(elsewhere.leaseId!)).toMatchObject({ settledAt: null });
    expect(await database.db.transaction((tx) => releaseLeases(tx, { gatewayId: gw }))).toEqual({ released: 0, returnedBytes: 0n });
  });

  it('reconciles the leases of a gateway that stopped reporting, and only those', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const silent = gateway();
    const live = gateway();
    const lost = await reserve(silent, u.proxyAccountId, 30n * MiB);
    await report(silent, lost.leaseId!, 4n * MiB);
    const kept = await reserve(live, u.proxyAccountId, 20n * MiB);
    // No API moves time: the silent gateway's last heartbeat is aged past the TTL.
    await database.db
      .update(gatewayLeases)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(gatewayLeases.id, lost.leaseId!));
    const r = await reconcileExpiredLeases(database.db);
    expect(r).toMatchObject({ released: 1, returnedBytes: 26n * MiB });
    expect(await leaseRow(lost.leaseId!)).toMatchObject({ settledAt: expect.any(Date) });
    expect(await leaseRow(kept.leaseId!)).toMatchObject({ settledAt: null });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 76n * MiB, usage: 4n * MiB });
    // The live gateway's lease is due LEASE_TTL_MS after its last heartbeat, not now.
    expect((await leaseRow(kept.leaseId!)).expiresAt.getTime()).toBeGreaterThan(Date.now() + LEASE_TTL_MS / 2);
    expect(await reconcileExpiredLeases(database.db)).toMatchObject({ released: 0 });
  });

  it('keeps every open lease of a gateway alive with each report, even an empty one', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const gw = gateway();
    const a = await reserve(gw, u.proxyAccountId, MiB);
    const b = await reserve(gw, u.proxyAccountId, MiB);
    await database.db
      .update(gatewayLeases)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(gatewayLeases.gatewayId, gw));
    await database.db.transaction((tx) => applyGatewayReport(tx, { gatewayId: gw, seq: ++seq, items: [] }));
    expect(await reconcileExpiredLeases(database.db)).toMatchObject({ released: 0 });
    expect([await leaseRow(a.leaseId!), await leaseRow(b.leaseId!)]).toMatchObject([{ settledAt: null }, { settledAt: null }]);
  });
});
