import { randomUUID } from 'node:crypto';
import { eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditEntries, gatewayLeases, planBuckets, plans, subscriptions } from '@proxyhub/db';
import { expectLedgerOk, fileDatabase, GiB, MiB, userWallet, userWithAccount } from '../../../test/fixtures';
import { applyGatewayReport, releaseLeases, reserveLease } from '../gateway/leases';
import { userPlanBytes } from './plan-buckets';
import { endDuePeriods, listSubscriptions, periodEndOf, planOrderPaid } from './subscriptions';

const database = fileDatabase();
const DAY = 86_400_000;
const T0 = new Date('2026-01-05T00:00:00Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);

async function plan(opts: { gb?: number; rollover?: boolean; period?: 'week' | 'month' } = {}) {
  const [p] = await database.db
    .insert(plans)
    .values({
      name: `P ${randomUUID().slice(0, 6)}`,
      gbPerPeriod: opts.gb ?? 1,
      priceCents: 500,
      period: opts.period ?? 'week',
      rollover: opts.rollover ?? false,
    })
    .returning();
  return p!;
}

/** What a credited plan order does (the payment path is tested through HTTP in apps/server). */
const paid = (userId: string, p: { id: string; gbPerPeriod: number }, now: Date) =>
  database.db.transaction((tx) => planOrderPaid(tx, { userId, planId: p.id, gbAmount: p.gbPerPeriod }, now));

const gw = () => `gw-${randomUUID().slice(0, 8)}`;
const reserve = (gatewayId: string, proxyAccountId: string, bytes: bigint) =>
  database.db.transaction((tx) => reserveLease(tx, { gatewayId, proxyAccountId, bytes: Number(bytes) }));
let seq = 0;
const report = (gatewayId: string, leaseId: string, down: bigint, release = false) =>
  database.db.transaction((tx) =>
    applyGatewayReport(tx, { gatewayId, seq: ++seq, items: [{ leaseId, bytesUp: 0, bytesDown: Number(down), sessions: 1, release }] }),
  );
const buckets = (subscriptionId: string) =>
  database.db.select().from(planBuckets).where(eq(planBuckets.subscriptionId, subscriptionId)).orderBy(planBuckets.period);
const entries = (subscriptionId: string, prefix: string) =>
  database.db
    .select({ key: creditEntries.sourceKey, bytes: creditEntries.amountBytes })
    .from(creditEntries)
    .where(like(creditEntries.sourceKey, `${prefix}:${subscriptionId}:%`))
    .orderBy(creditEntries.sourceKey);

describe('plan periods', () => {
  it('a month ends on the same day of the next month, clamped to its last day', () => {
    expect(periodEndOf(new Date('2026-01-31T10:00:00Z'), 'month')).toEqual(new Date('2026-02-28T10:00:00Z'));
    expect(periodEndOf(new Date('2026-03-15T00:00:00Z'), 'month')).toEqual(new Date('2026-04-15T00:00:00Z'));
    expect(periodEndOf(T0, 'week')).toEqual(at(7));
  });
});

describe('plan buckets', () => {
  it('a paid period grants the plan GB once into the wallet, as a bucket ending at periodEnd', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const p = await plan({ gb: 2 });
    const sub = await paid(u.userId, p, T0);
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 100n * MiB + 2n * GiB, usage: 0n });
    expect(await entries(sub, 'plan-grant')).toEqual([{ key: `plan-grant:${sub}:1`, bytes: 2n * GiB }]);
    const [b] = await buckets(sub);
    expect(b).toMatchObject({ period: 1, grantedBytes: 2n * GiB, remainingBytes: 2n * GiB, endsAt: at(7), closedAt: null });
    expect(await userPlanBytes(database.db, u.userId)).toEqual({ planBytes: 2n * GiB, planEndsAt: at(7) });
    const [view] = await listSubscriptions(database.db, u.userId);
    expect(view).toMatchObject({ id: sub, status: 'active', periodStart: T0, periodEnd: at(7), allowanceBytes: 2n * GiB, usedBytes: 0n, renewsAt: at(7) });
    await expectLedgerOk(database.db, u.userId);
  });

  it('traffic spends the bucket that ends soonest, then pay-as-you-go; unused lease bytes go back to their bucket', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const later = await paid(u.userId, await plan({ gb: 1, period: 'month' }), T0);
    const sooner = await paid(u.userId, await plan({ gb: 1, period: 'week' }), T0);
    const g = gw();
    const lease = await reserve(g, u.proxyAccountId, 30n * MiB);
    expect((await database.db.select().from(gatewayLeases).where(eq(gatewayLeases.id, lease.leaseId!)))[0]!.planBucketId).toBe((await buckets(sooner))[0]!.id);
    await report(g, lease.leaseId!, 10n * MiB, true);
    expect((await buckets(sooner))[0]).toMatchObject({ remainingBytes: GiB - 10n * MiB, usedBytes: 10n * MiB });
    expect((await buckets(later))[0]).toMatchObject({ remainingBytes: GiB, usedBytes: 0n });
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 100n * MiB + 2n * GiB - 10n * MiB, usage: 10n * MiB });
    await expectLedgerOk(database.db, u.userId);
  });

  it('a lease takes no more than its bucket has; the next one draws pay-as-you-go once buckets are empty', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const sub = await paid(u.userId, await plan({ gb: 1 }), T0);
    const g = gw();
    const first = await reserve(g, u.proxyAccountId, 512n * MiB);
    await report(g, first.leaseId!, GiB - 5n * MiB); // beyond its lease: charged to the bucket
    const second = await reserve(g, u.proxyAccountId, 64n * MiB);
    const third = await reserve(g, u.proxyAccountId, 64n * MiB);
    const rows = await database.db.select().from(gatewayLeases).where(eq(gatewayLeases.gatewayId, g));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(first.leaseId!)!.planBucketId).not.toBeNull();
    const [b] = await buckets(sub);
    expect(b!.remainingBytes).toBeGreaterThanOrEqual(0n);
    // The bucket had 5 MiB left at most for the second lease; the third is pay-as-you-go.
    expect(second.grantedBytes).toBeLessThanOrEqual(5n * MiB + 512n * MiB);
    expect(byId.get(third.leaseId!)!.planBucketId).toBeNull();
    await expectLedgerOk(database.db, u.userId);
  });

  it('at the period end an unpaid subscription lapses, its remainder expires once, pay-as-you-go is untouched', async () => {
    const u = await userWithAccount(database.db, 100n * MiB);
    const sub = await paid(u.userId, await plan({ gb: 1 }), T0);
    const g = gw();
    const lease = await reserve(g, u.proxyAccountId, 30n * MiB);
    await report(g, lease.leaseId!, 30n * MiB, true);
    await endDuePeriods(database.db, at(6));
    expect(await entries(sub, 'plan-expire')).toEqual([]);
    // Two servers at once: one of them ends the period.
    await Promise.all([endDuePeriods(database.db, at(7)), endDuePeriods(database.db, at(7))]);
    expect(await entries(sub, 'plan-expire')).toEqual([{ key: `plan-expire:${sub}:1`, bytes: -(GiB - 30n * MiB) }]);
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 100n * MiB, usage: 30n * MiB });
    const [s] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub));
    expect(s).toMatchObject({ status: 'lapsed' });
    expect(await userPlanBytes(database.db, u.userId)).toEqual({ planBytes: 0n, planEndsAt: null });
    await expectLedgerOk(database.db, u.userId);
  });

  it('a paid renewal starts the next period at the old end; rollover carries the unused grant once, then it expires', async () => {
    const u = await userWithAccount(database.db);
    const p = await plan({ gb: 1, rollover: true });
    const sub = await paid(u.userId, p, T0);
    const g = gw();
    const lease = await reserve(g, u.proxyAccountId, 100n * MiB);
    await report(g, lease.leaseId!, 100n * MiB, true);
    await paid(u.userId, p, at(3)); // renewal paid early
    await endDuePeriods(database.db, at(7));
    const [s] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub));
    expect(s).toMatchObject({ status: 'active', period: 2, periodStart: at(7), periodEnd: at(14) });
    const [, b2] = await buckets(sub);
    expect(b2).toMatchObject({ period: 2, grantedBytes: GiB, carriedBytes: GiB - 100n * MiB, remainingBytes: 2n * GiB - 100n * MiB });
    expect(await entries(sub, 'plan-expire')).toEqual([{ key: `plan-expire:${sub}:1`, bytes: 0n }]);
    // Not renewed again: at the end of period 2 both its grant and what was carried expire.
    await endDuePeriods(database.db, at(14));
    expect(await entries(sub, 'plan-expire')).toEqual([
      { key: `plan-expire:${sub}:1`, bytes: 0n },
      { key: `plan-expire:${sub}:2`, bytes: -(2n * GiB - 100n * MiB) },
    ]);
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 0n, usage: 100n * MiB });
    await expectLedgerOk(database.db, u.userId);
  });

  it('bytes leased from a bucket when it closes: used ones count, returned ones expire as they come back', async () => {
    const u = await userWithAccount(database.db, 10n * MiB);
    const sub = await paid(u.userId, await plan({ gb: 1 }), T0);
    const g = gw();
    const lease = await reserve(g, u.proxyAccountId, 50n * MiB);
    await endDuePeriods(database.db, at(7));
    expect(await entries(sub, 'plan-expire')).toEqual([{ key: `plan-expire:${sub}:1`, bytes: -(GiB - 50n * MiB) }]);
    await expectLedgerOk(database.db, u.userId);
    await report(g, lease.leaseId!, 20n * MiB);
    await database.db.transaction((tx) => releaseLeases(tx, { leaseIds: [lease.leaseId!] }));
    expect(await entries(sub, 'plan-expire')).toEqual(
      [
        { key: `plan-expire:${sub}:1`, bytes: -(GiB - 50n * MiB) },
        { key: `plan-expire:${sub}:1:${lease.leaseId}`, bytes: -30n * MiB },
      ].sort((x, y) => x.key.localeCompare(y.key)),
    );
    expect(await userWallet(database.db, u.userId)).toEqual({ credits: 10n * MiB, usage: 20n * MiB });
    await expectLedgerOk(database.db, u.userId);
  });

  it('concurrent leases never take a bucket below zero, across its end', async () => {
    const u = await userWithAccount(database.db, 64n * MiB);
    const sub = await paid(u.userId, await plan({ gb: 1 }), T0);
    // One gateway per worker: a gateway sends its reports one after another.
    const prefix = `c${randomUUID().slice(0, 6)}`;
    const grants = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (async () => {
          const g = `${prefix}-${i}`;
          const l = await reserve(g, u.proxyAccountId, 64n * MiB);
          if (l.leaseId) await report(g, l.leaseId, l.grantedBytes / 2n, true);
          if (i === 12) await endDuePeriods(database.db, at(7));
          return l;
        })(),
      ),
    );
    expect(grants.every((l) => l.outcome === 'granted' || l.outcome === 'empty')).toBe(true);
    const [b] = await buckets(sub);
    expect(b!.remainingBytes).toBeGreaterThanOrEqual(0n);
    expect(b!.closedAt).not.toBeNull();
    const open = await database.db
      .select()
      .from(gatewayLeases)
      .where(like(gatewayLeases.gatewayId, `${prefix}-%`));
    expect(open.filter((l) => l.proxyAccountId === u.proxyAccountId).every((l) => l.settledAt !== null)).toBe(true);
    expect((await userWallet(database.db, u.userId)).credits).toBeGreaterThanOrEqual(0n);
    await expectLedgerOk(database.db, u.userId);
  });
});
