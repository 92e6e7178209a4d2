/** GET /api/status/quality: what the prober measured, per country, from its stored probes. */
import { gte, sql } from 'drizzle-orm';
import type { QualityBoard, QualityCountry } from '@proxyhub/core';
import { qualityProbes, type DbOrTx } from '@proxyhub/db';
import { degradedCountries } from './quality-incidents';
import { QUALITY_KEEP_DAYS } from './quality-probes';

const DAY_MS = 86_400_000;
/** A share to 4 decimals; null of nothing. */
const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 10_000 : null);

export async function qualityBoard(db: DbOrTx, now = Date.now()): Promise<QualityBoard> {
  const since90 = new Date(now - (QUALITY_KEEP_DAYS - 1) * DAY_MS);
  since90.setUTCHours(0, 0, 0, 0);
  const p = qualityProbes;
  const day = sql<string>`to_char(${p.at} at time zone 'UTC', 'YYYY-MM-DD')`;
  // Percentiles by nearest rank (percentile_disc) over the probes that passed.
  const connectAt = (fraction: number) => sql<number | null>`(percentile_disc(${fraction}) within group (order by ${p.connectMs}) filter (where ${p.ok}))::int`;
  const [days, recent, degraded] = await Promise.all([
    db
      .select({ country: p.country, date: day, total: sql<number>`count(*)::int`, ok: sql<number>`(count(*) filter (where ${p.ok}))::int` })
      .from(p)
      .where(gte(p.at, since90))
      .groupBy(p.country, day)
      .orderBy(p.country, day),
    db
      .select({
        country: p.country,
        total: sql<number>`count(*)::int`,
        ok: sql<number>`(count(*) filter (where ${p.ok}))::int`,
        matched: sql<number>`(count(*) filter (where ${p.ok} and ${p.exitCountry} = ${p.country}))::int`,
        p50: connectAt(0.5),
        p95: connectAt(0.95),
      })
      .from(p)
      .where(gte(p.at, new Date(now - DAY_MS)))
      .groupBy(p.country),
    degradedCountries(db),
  ]);
  const last24h = new Map(recent.map((r) => [r.country, r]));
  const byCountry = new Map<string, QualityCountry>();
  for (const d of days) {
    let c = byCountry.get(d.country);
    if (!c) {
      const r = last24h.get(d.country);
      c = {
        country: d.country,
        okRate24h: r ? rate(r.ok, r.total) : null,
        p50ConnectMs: r?.p50 ?? null,
        p95ConnectMs: r?.p95 ?? null,
        exitCountryMatchRate: r ? rate(r.matched, r.ok) : null,
        degraded: degraded.has(d.country),
        days: [],
      };
      byCountry.set(d.country, c);
    }
    c.days.push({ date: d.date, okRate: rate(d.ok, d.total)! });
  }
  return { countries: [...byCountry.values()] };
}
