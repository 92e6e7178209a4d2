/**
 * The admin's view of the whole business over the last 30 UTC days: traffic by day and by country
 * (from the daily usage rows) and revenue by day: paid crypto top-ups at what was paid (an underpaid
 * one at its paid part), paid plan orders beside them, redeemed codes at the list price in force
 * (codes carry no price of their own).
 */
import { and, gte, isNotNull, sql } from 'drizzle-orm';
import { payments, topupCodes, usageDaily, type DbOrTx } from '@proxyhub/db';
import { getPricing } from '../money/pricing';
import { centsForBytes, paidCentsSql } from '../network/upstreams';

const DAY_MS = 86_400_000;
export const OVERVIEW_DAYS = 30;

export interface OverviewDay {
  day: string;
  bytes: string;
  cryptoCents: number;
  codeCents: number;
  planCents: number;
  revenueCents: number;
}

export async function adminOverview(db: DbOrTx, now = Date.now()) {
  const end = now - (now % DAY_MS);
  const start = end - (OVERVIEW_DAYS - 1) * DAY_MS;
  const since = new Date(start);
  const dayOf = (col: typeof payments.creditedAt | typeof topupCodes.redeemedAt) =>
    sql<string>`(extract(epoch from date_trunc('day', ${col}, 'UTC')) * 1000)::bigint::text`;

  const [traffic, countries, paid, redeemed, pricing] = await Promise.all([
    db
      .select({
        day: sql<string>`(extract(epoch from ${usageDaily.day}) * 1000)::bigint::text`,
        bytes: sql<string>`sum(${usageDaily.bytesUp} + ${usageDaily.bytesDown})::text`,
      })
      .from(usageDaily)
      .where(gte(usageDaily.day, since))
      .groupBy(usageDaily.day),
    db
      .select({ country: usageDaily.country, bytes: sql<string>`sum(${usageDaily.bytesUp} + ${usageDaily.bytesDown})::text` })
      .from(usageDaily)
      .where(gte(usageDaily.day, since))
      .groupBy(usageDaily.country)
      .orderBy(sql`sum(${usageDaily.bytesUp} + ${usageDaily.bytesDown}) desc`, usageDaily.country),
    db
      .select({
        day: dayOf(payments.creditedAt),
        cents: sql<string>`coalesce(sum(${paidCentsSql}) filter (where ${payments.planId} is null), 0)::text`,
        planCents: sql<string>`coalesce(sum(${paidCentsSql}) filter (where ${payments.planId} is not null), 0)::text`,
      })
      .from(payments)
      .where(and(isNotNull(payments.creditedAt), gte(payments.creditedAt, since)))
      .groupBy(sql`1`),
    db
      .select({ day: dayOf(topupCodes.redeemedAt), bytes: sql<string>`sum(${topupCodes.creditsBytes})::text` })
      .from(topupCodes)
      .where(and(isNotNull(topupCodes.redeemedAt), gte(topupCodes.redeemedAt, since)))
      .groupBy(sql`1`),
    getPricing(db),
  ]);
  const byDay = <T extends { day: string }>(rows: T[]) => new Map(rows.map((r) => [Number(r.day), r]));
  const t = byDay(traffic);
  const p = byDay(paid);
  const r = byDay(redeemed);
  const days: OverviewDay[] = [];
  for (let d = start; d <= end; d += DAY_MS) {
    const cryptoCents = Number(p.get(d)?.cents ?? 0);
    const planCents = Number(p.get(d)?.planCents ?? 0);
    const codeCents = centsForBytes(BigInt(r.get(d)?.bytes ?? 0), pricing.pricePerGbCents);
    days.push({
      day: new Date(d).toISOString(),
      bytes: t.get(d)?.bytes ?? '0',
      cryptoCents,
      codeCents,
      planCents,
      revenueCents: cryptoCents + codeCents + planCents,
    });
  }
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    days,
    /** What a redeemed code's GB is counted at. */
    listPricePerGbCents: pricing.pricePerGbCents,
    byCountry: countries.filter((c) => c.bytes !== '0').map((c) => ({ country: c.country || null, bytes: c.bytes })),
    totals: {
      bytes: days.reduce((n, d) => n + BigInt(d.bytes), 0n).toString(),
      revenueCents: days.reduce((n, d) => n + d.revenueCents, 0),
      /** Top-ups: crypto orders and redeemed codes. */
      topUpCents: days.reduce((n, d) => n + d.cryptoCents + d.codeCents, 0),
      planCents: days.reduce((n, d) => n + d.planCents, 0),
    },
  };
}
