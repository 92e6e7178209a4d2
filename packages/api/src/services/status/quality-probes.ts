/**
 * The quality prober: every QUALITY_PROBE_MINUTES one server of the fleet (the one that claims the
 * period, lib/job-claims.ts) tests each offered country through each enabled upstream serving it,
 * through the gateway exactly as a customer's line test goes (network/proxy-test.ts), and stores
 * what it saw. The tests are signed probes: unbilled, pinned to their pool, leasing nothing.
 *
 * They go out as the prober's own proxy account, the one account of a batch with no allowance
 * (no user, no wallet, nothing to spend). Its batch code is lower-case, which a customer's batch
 * code never matches (processBatch upper-cases what it is given), so nobody can claim it.
 */
import { desc, eq, lt } from 'drizzle-orm';
import { newProxyPassword, newProxyUserId, type SecretBox } from '@proxyhub/auth';
import { buildProxyUsername, DEFAULT_QUALITY_PROBE_MINUTES } from '@proxyhub/core';
import { batches, proxyAccounts, qualityProbes, upstreams, type Db, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';
import { runOncePerPeriod } from '../lib/job-claims';
import { offeredCountries } from '../network/catalogue';
import { proxyTestOptions, testLineThroughGateway } from '../network/proxy-test';
import { updateIncidents, type IncidentChange } from './quality-incidents';

export const PROBE_BATCH_CODE = 'quality-probe';
/** Probes are kept this long: the board shows 90 days. */
export const QUALITY_KEEP_DAYS = 90;
/** Probes in flight at once: a catalogue of 200 countries must not open 200 tunnels together. */
const PROBE_CONCURRENCY = 16;

export const qualityProbePeriodMs = (config: ApiConfig) => Math.round((config.quality?.probeMinutes ?? DEFAULT_QUALITY_PROBE_MINUTES) * 60_000);

/** The prober's proxy account, made on first use: its proxy user id and password. */
export async function probeAccount(db: Db, secrets: SecretBox): Promise<{ proxyUserId: string; password: string }> {
  return db.transaction(async (tx) => {
    await tx.insert(batches).values({ batchCode: PROBE_BATCH_CODE, usageType: 'normal_proxy' }).onConflictDoNothing();
    const [batch] = await tx.select({ id: batches.id }).from(batches).where(eq(batches.batchCode, PROBE_BATCH_CODE)).for('update');
    const [found] = await tx
      .select({ proxyUserId: proxyAccounts.proxyUserId, passwordEnc: proxyAccounts.proxyPasswordEnc })
      .from(proxyAccounts)
      .where(eq(proxyAccounts.batchId, batch!.id))
      .limit(1);
    if (found) return { proxyUserId: found.proxyUserId, password: secrets.decrypt(found.passwordEnc) };
    const made = { proxyUserId: newProxyUserId(), password: newProxyPassword() };
    await tx.insert(proxyAccounts).values({
      kind: 'batch',
      name: 'Quality probes',
      proxyUserId: made.proxyUserId,
      proxyPasswordEnc: secrets.encrypt(made.password),
      batchId: batch!.id,
      usageType: 'normal_proxy',
    });
    return made;
  });
}

/** What to probe: each offered country with each enabled upstream serving it; with none enabled, each country once by the default route. */
type ProbeTarget = { country: string; upstreamId: string | null };

export async function probeTargets(db: DbOrTx, config: ApiConfig): Promise<ProbeTarget[]> {
  const offered = [...(await offeredCountries(db, { defaultUpstream: config.defaultUpstream }))].sort();
  const pools = await db.select({ id: upstreams.id, countries: upstreams.countries }).from(upstreams).where(eq(upstreams.enabled, true));
  if (!pools.length) return offered.map((country) => ({ country, upstreamId: null }));
  return offered.flatMap((country): ProbeTarget[] => {
    const serving = pools.filter((p) => p.countries === null || p.countries.includes(country));
    // Offered by the default upstream alone (no pool serves it): measured by the default route.
    return serving.length ? serving.map((p) => ({ country, upstreamId: p.id })) : [{ country, upstreamId: null }];
  });
}

export interface ProbeRound {
  probes: number;
  failed: number;
  incidents: IncidentChange[];
}

/** One round: every target probed, the results stored, each country's incident state moved, probes past 90 days dropped. */
export async function runQualityProbes(db: Db, secrets: SecretBox, config: ApiConfig, now = () => new Date()): Promise<ProbeRound> {
  const targets = await probeTargets(db, config);
  if (!targets.length) return { probes: 0, failed: 0, incidents: [] };
  const account = await probeAccount(db, secrets);
  const opts = proxyTestOptions(config);
  const rows: Array<typeof qualityProbes.$inferInsert> = [];
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const t = targets[next++]!;
      const at = now();
      // A rotating line: each probe may get a new exit, as most customers' lines do.
      const username = buildProxyUsername({ proxyUserId: account.proxyUserId, location: { country: t.country }, durationMinutes: 0 });
      const r = await testLineThroughGateway(opts, { username, password: account.password, probe: { upstreamId: t.upstreamId } });
      rows.push({ country: t.country, upstreamId: t.upstreamId, at, ok: r.ok, connectMs: r.connectMs, exitCountry: r.ok ? r.country : null });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, targets.length) }, worker));
  await db.insert(qualityProbes).values(rows);
  await db.delete(qualityProbes).where(lt(qualityProbes.at, new Date(now().getTime() - QUALITY_KEEP_DAYS * 86_400_000)));
  const incidents = await updateIncidents(db, [...new Set(rows.map((r) => r.country))], config, now());
  return { probes: rows.length, failed: rows.filter((r) => !r.ok).length, incidents };
}

/** One tick on one server: the server that claims the period probes; null when another has it. */
export function qualityProbeTick(db: Db, secrets: SecretBox, config: ApiConfig, by: string, now = Date.now()) {
  return runOncePerPeriod(db, { job: 'quality-probes', periodMs: qualityProbePeriodMs(config), by, now }, () => runQualityProbes(db, secrets, config));
}

/** The probes of a country, newest first (tests and the admin's eye). */
export function recentProbes(db: DbOrTx, country: string, limit = 3) {
  return db
    .select({ ok: qualityProbes.ok, at: qualityProbes.at })
    .from(qualityProbes)
    .where(eq(qualityProbes.country, country))
    .orderBy(desc(qualityProbes.at))
    .limit(limit);
}
