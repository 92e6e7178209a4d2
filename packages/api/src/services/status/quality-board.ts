/** GET /api/status/quality: what the prober measured, per country, from its stored probes. */
import { gte, sql } from 'drizzle-orm';
import type { QualityBoard, QualityCountry } from '@proxyhub/core';
import { qualityProbes, type DbOrTx } from '@proxyhub/db';
import { degradedCountries } from './quality-incidents';
import { QUALITY_KEEP_DAYS } from './quality-probes';

const DAY_MS = 86_400_000;
const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 10_000 : null);

/** The nearest-rank percentile of sorted values; null for none. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function qualityBoard(db: DbOrTx, now = Date.now()): Promise<QualityBoard> {
  const since90 = new Date(now - (QUALITY_KEEP_DAYS - 1) * DAY_MS);
  since90.setUTCHours(0, 0, 0, 0);
  const day = sql<string>`to_char(${qualityProbes.at} at time zone 'UTC', 'YYYY-MM-DD')`;
  const [days, recent, degraded] = await Promise.all([
    db
      .select({
        country: qualityProbes.country,
        date: day,
        total: sql<number>`count(*)::int`,
        ok: sql<number>`count(*) filter (where ${qualityProbes.ok})::int`,
      })
      .from(qualityProbes)
      .where(gte(qualityProbes.at, since90))
      .groupBy(qualityProbes.country, day)
      .orderBy(qualityProbes.country, day),
    db
      .select({ country: qualityProbes.country, ok: qualityProbes.ok, connectMs: qualityProbes.connectMs, exitCountry: qualityProbes.exitCountry })
      .from(qualityProbes)
      .where(gte(qualityProbes.at, new Date(now - DAY_MS))),
    degradedCountries(db),
  ]);
  const byCountry = new Map<string, QualityCountry>();
  for (const d of days) {
    let c = byCountry.get(d.country);
    if (!c) {
      c = {
        country: d.country,
        okRate24h: null,
        p50ConnectMs: null,
        p95ConnectMs: null,
        exitCountryMatchRate: null,
        degraded: degraded.has(d.country),
        days: [],
      };
      byCountry.set(d.country, c);
    }
    c.days.push({ date: d.date, okRate: rate(d.ok, d.total)! });
  }
  for (const c of byCountry.values()) {
    const probes = recent.filter((p) => p.country === c.country);
    const ok = probes.filter((p) => p.ok);
    const connect = ok.flatMap((p) => (p.connectMs === null ? [] : [p.connectMs])).sort((a, b) => a - b);
    c.okRate24h = rate(ok.length, probes.length);
    c.p50ConnectMs = percentile(connect, 50);
    c.p95ConnectMs = percentile(connect, 95);
    c.exitCountryMatchRate = rate(ok.filter((p) => p.exitCountry === c.country).length, ok.length);
  }
  return { countries: [...byCountry.values()] };
}
