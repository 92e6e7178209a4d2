/**
 * A plan's bucket spent by real tunnels across its period's end: downloads run through the gateway
 * while the plan clock closes the period; the bucket never goes below zero, what it had left expires,
 * traffic after the end is pay-as-you-go, and the ledger holds.
 */
import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planPeriodsTick } from '@proxyhub/api';
import { creditEntries, planBuckets, subscriptions, users } from '@proxyhub/db';
import { adminClient, curl, expectLedgerHolds, SMALL_LEASES, startStackAndTarget, userWithCredits, type Stack, type Target } from './helpers';

const MiB = 1024 * 1024;

let stack: Stack;
let target: Target;
beforeAll(async () => {
  ({ stack, target } = await startStackAndTarget({ meter: SMALL_LEASES }));
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

describe('a plan bucket under traffic', () => {
  it('is spent first by concurrent tunnels, closes at its end mid-traffic, never below zero; then pay-as-you-go', async () => {
    const { server } = stack;
    const admin = await adminClient(server);
    const plan = (await admin.post<{ plan: { id: string } }>('/admin/plans', { name: 'Weekly 1', gbPerPeriod: 1, priceCents: 1000, period: 'week' })).body.plan;
    const payg = 16n * BigInt(MiB);
    const u = await userWithCredits(server, payg);
    let clock = new Date();
    server.deps.now = () => clock;
    const order = await u.client.post<{ invoiceUrl: string }>('/api/subscriptions', { planId: plan.id });
    await u.client.request('POST', new URL(order.body.invoiceUrl).pathname, 'outcome=finished', { 'content-type': 'application/x-www-form-urlencoded' });
    const [sub] = await server.database.db.select().from(subscriptions).where(eq(subscriptions.userId, u.userId));
    expect(sub).toMatchObject({ status: 'active' });

    const via = ['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`];
    const download = (bytes: number) => curl([...via, '-o', '/dev/null', '-w', '%{http_code}', `${target.url}/download?bytes=${bytes}`]);
    // Before the end: six tunnels at once, from the bucket.
    const first = Array.from({ length: 6 }, () => download(4 * MiB));
    await Promise.race(first);
    // The period ends while the others still run (their leases were drawn from the bucket).
    clock = sub!.periodEnd;
    const tick = await planPeriodsTick(server.deps, new Date(sub!.periodEnd.getTime() + 1000));
    expect(tick.periodsEnded).toBe(1);
    await Promise.all(first);
    // After the end: pay-as-you-go only.
    await Promise.all(Array.from({ length: 4 }, () => download(2 * MiB)));
    await stack.gateway.flush();
    await stack.gateway.close();

    const [bucket] = await server.database.db.select().from(planBuckets).where(eq(planBuckets.subscriptionId, sub!.id));
    expect(bucket!.closedAt).not.toBeNull();
    expect(bucket!.remainingBytes).toBe(0n);
    expect(bucket!.usedBytes).toBeGreaterThan(0n);
    expect(bucket!.usedBytes).toBeLessThanOrEqual(bucket!.grantedBytes);
    const expired = await server.database.db
      .select({ bytes: creditEntries.amountBytes })
      .from(creditEntries)
      .where(like(creditEntries.sourceKey, `plan-expire:${sub!.id}:1%`));
    expect(expired.length).toBeGreaterThan(0);
    const [wallet] = await server.database.db.select({ credits: users.creditsBytes, usage: users.totalUsageBytes }).from(users).where(eq(users.id, u.userId));
    // Every byte used was the bucket's or pay-as-you-go's; nothing of the plan became pay-as-you-go.
    expect(wallet!.credits).toBeGreaterThanOrEqual(0n);
    expect(wallet!.usage).toBe(bucket!.usedBytes + (payg - wallet!.credits));
    expect(wallet!.usage).toBeGreaterThanOrEqual(BigInt(32 * MiB));
    const [lapsed] = await server.database.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id));
    expect(lapsed!.status).toBe('lapsed');
    await expectLedgerHolds(server, u.userId);
  });
});
