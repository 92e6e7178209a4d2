/**
 * Upstreams' provider accounts and the balance watch. An account says which API tells the
 * upstream's traffic left (and its usage per day); its key is sealed like the upstream password
 * and never answered. The watch reads every account's balance once per period on one server of the
 * fleet (job-claims.ts) and moves each account's level (ok, low, dry) with a locked read-and-write,
 * so a crossing into low or dry raises exactly one alert however many servers and checks see it,
 * and the return to ok resolves it. A dry upstream is left out of the gateways' pools
 * (gatewayUpstreams) until a balance above 0 is read.
 */
import { eq, inArray } from 'drizzle-orm';
import type { SecretBox } from '@proxyhub/auth';
import {
  BYTES_PER_GB,
  DEFAULT_UPSTREAM_BALANCE_MINUTES,
  DomainError,
  formatGb,
  hundredthsGbToBytes,
  UPSTREAM_PROVIDER_LABELS,
  type AdminAlertKind,
  type UpstreamAccountInput,
  type UpstreamBalanceLevel,
} from '@proxyhub/core';
import { upstreamAccounts, upstreams, type Db, type DbOrTx } from '@proxyhub/db';
import type { ApiConfig } from '../../config';
import { runOncePerPeriod } from '../lib/job-claims';
import { raiseAdminAlert, resolveAdminAlerts } from '../notify/admin-alerts';
import { checkOutboundUrl, type OutboundPolicy } from '../lib/outbound-http';
import { ProviderError, readProviderBalance, type ProviderAccount } from './provider-adapters';

type AccountRow = typeof upstreamAccounts.$inferSelect;

/** The threshold as the admin typed it: GB with at most two decimals (stored rounded up, read back truncated). */
const bytesToHundredthsGb = (bytes: bigint) => Number((bytes * 100n) / BYTES_PER_GB) / 100;

/** What an admin sees of an account: never the key, only whether one is set. */
export function accountView(r: AccountRow | undefined) {
  if (!r) return null;
  return {
    provider: r.provider,
    apiKeySet: r.apiKeyEnc !== '',
    balanceUrl: r.balanceUrl,
    usageUrl: r.usageUrl,
    lowBalanceGB: bytesToHundredthsGb(r.lowBalanceBytes),
    balance: r.balanceBytes === null || !r.checkedAt ? null : { bytes: r.balanceBytes.toString(), checkedAt: r.checkedAt.toISOString() },
    status: r.status,
    error: r.error,
    lastCheckAt: r.lastCheckAt?.toISOString() ?? null,
  };
}
export type UpstreamAccountView = ReturnType<typeof accountView>;

/** The accounts of these upstreams, by upstream id. */
export async function accountsOf(db: DbOrTx, ids: readonly string[]): Promise<Map<string, AccountRow>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select()
    .from(upstreamAccounts)
    .where(inArray(upstreamAccounts.upstreamId, [...ids]));
  return new Map(rows.map((r) => [r.upstreamId, r]));
}

/**
 * The account's URLs are acceptable (https, or http to loopback where private targets are
 * allowed; never a private or metadata host). Checked before anything is written, so a refused
 * account leaves the upstream unchanged too.
 */
export async function checkAccountInput(input: UpstreamAccountInput | null | undefined, policy: OutboundPolicy): Promise<void> {
  if (!input) return;
  if (input.balanceUrl) await checkOutboundUrl(input.balanceUrl, policy, 'Balance URL');
  if (input.usageUrl) await checkOutboundUrl(input.usageUrl, policy, 'Usage URL');
}

/**
 * Writes the upstream's account in the caller's transaction: null removes it, undefined leaves it.
 * An omitted key keeps the stored one. A change of provider, URL or key forgets the last reading
 * (it was another account's); a new threshold applies at the next check.
 */
export async function saveUpstreamAccount(tx: DbOrTx, secrets: SecretBox, upstreamId: string, input: UpstreamAccountInput | null | undefined): Promise<void> {
  if (input === undefined) return;
  if (input === null) {
    await tx.delete(upstreamAccounts).where(eq(upstreamAccounts.upstreamId, upstreamId));
    return;
  }
  const [old] = await tx.select().from(upstreamAccounts).where(eq(upstreamAccounts.upstreamId, upstreamId)).for('update');
  const apiKeyEnc = input.apiKey === undefined ? (old?.apiKeyEnc ?? '') : input.apiKey ? secrets.encrypt(input.apiKey) : '';
  if (input.provider !== 'custom' && apiKeyEnc === '')
    throw new DomainError('BAD_REQUEST', `API key is required for ${UPSTREAM_PROVIDER_LABELS[input.provider]}`);
  const fields = {
    provider: input.provider,
    apiKeyEnc,
    balanceUrl: input.balanceUrl ?? null,
    usageUrl: input.usageUrl ?? null,
    lowBalanceBytes: hundredthsGbToBytes(input.lowBalanceGB ?? 0),
    updatedAt: new Date(),
  };
  const sameAccount =
    old && old.provider === fields.provider && old.balanceUrl === fields.balanceUrl && old.usageUrl === fields.usageUrl && input.apiKey === undefined;
  const forget = sameAccount ? {} : { balanceBytes: null, checkedAt: null, level: null, status: 'unchecked' as const, error: null, lastCheckAt: null };
  await tx
    .insert(upstreamAccounts)
    .values({ upstreamId, ...fields, ...forget })
    .onConflictDoUpdate({ target: upstreamAccounts.upstreamId, set: { ...fields, ...forget } });
}

/** What the adapters need of an upstream with an account, the key in clear. */
async function providerAccounts(db: DbOrTx, secrets: SecretBox) {
  const rows = await db
    .select({ account: upstreamAccounts, name: upstreams.name, costPerGbCents: upstreams.costPerGbCents, usernameTemplate: upstreams.usernameTemplate })
    .from(upstreamAccounts)
    .innerJoin(upstreams, eq(upstreams.id, upstreamAccounts.upstreamId));
  return rows.map((r) => ({
    upstreamId: r.account.upstreamId,
    name: r.name,
    provider: {
      provider: r.account.provider,
      apiKey: r.account.apiKeyEnc ? secrets.decrypt(r.account.apiKeyEnc) : '',
      balanceUrl: r.account.balanceUrl,
      usageUrl: r.account.usageUrl,
      costPerGbCents: r.costPerGbCents,
      usernameTemplate: r.usernameTemplate,
    } satisfies ProviderAccount,
  }));
}

/** One upstream's account as the adapters read it (the reconcile's usage calls), or null without one. */
export async function providerAccountOf(db: DbOrTx, secrets: SecretBox, upstreamId: string): Promise<ProviderAccount | null> {
  return (await providerAccounts(db, secrets)).find((a) => a.upstreamId === upstreamId)?.provider ?? null;
}

const LEVEL_RANK: Record<UpstreamBalanceLevel, number> = { ok: 0, low: 1, dry: 2 };

export function balanceLevel(bytes: bigint, lowBalanceBytes: bigint): UpstreamBalanceLevel {
  if (bytes <= 0n) return 'dry';
  return bytes < lowBalanceBytes ? 'low' : 'ok';
}

export type BalanceReading = { ok: true; bytes: bigint } | { ok: false; error: string };

/**
 * Records one reading of an upstream's balance and what it crossed: into low or dry (worse than
 * before) raises one alert, back to ok resolves the open ones; a failed reading keeps the level
 * and alerts as they were. The row lock orders concurrent readings of one upstream.
 */
export async function applyBalanceReading(tx: DbOrTx, upstreamId: string, name: string, reading: BalanceReading, now = new Date()) {
  const [row] = await tx.select().from(upstreamAccounts).where(eq(upstreamAccounts.upstreamId, upstreamId)).for('update');
  if (!row) return null;
  if (!reading.ok) {
    await tx.update(upstreamAccounts).set({ status: 'error', error: reading.error, lastCheckAt: now }).where(eq(upstreamAccounts.upstreamId, upstreamId));
    return { status: 'error' as const, crossed: null };
  }
  const level = balanceLevel(reading.bytes, row.lowBalanceBytes);
  await tx
    .update(upstreamAccounts)
    .set({ balanceBytes: reading.bytes, checkedAt: now, lastCheckAt: now, level, status: level, error: null })
    .where(eq(upstreamAccounts.upstreamId, upstreamId));
  const before = row.level ?? 'ok';
  if (LEVEL_RANK[level] > LEVEL_RANK[before]) {
    const kind: AdminAlertKind = level === 'dry' ? 'upstream_dry' : 'upstream_low';
    const message =
      level === 'dry'
        ? `Upstream ${name} is dry: no traffic left at the provider. Gateways stop sending new connections to it.`
        : `Upstream ${name} is low: ${formatGb(reading.bytes)} GB left (threshold ${formatGb(row.lowBalanceBytes)} GB).`;
    await raiseAdminAlert(tx, { kind, upstreamId, message });
    return { status: level, crossed: level };
  }
  if (level === 'ok' && before !== 'ok') await resolveAdminAlerts(tx, upstreamId, ['upstream_low', 'upstream_dry'], now);
  return { status: level, crossed: level === before ? null : level };
}

/**
 * Reads every account's balance (side by side; each provider within its 10 s) and records each.
 * Called by the watch on the one server that claimed the period, and by tests.
 */
export async function checkUpstreamBalances(db: DbOrTx, secrets: SecretBox, policy: OutboundPolicy, now = () => new Date()) {
  const accounts = await providerAccounts(db, secrets);
  const results = await Promise.all(
    accounts.map(async (a) => {
      let reading: BalanceReading;
      try {
        reading = { ok: true, bytes: await readProviderBalance(a.provider, policy) };
      } catch (err) {
        reading = { ok: false, error: err instanceof ProviderError || err instanceof DomainError ? err.message : 'The provider could not be read' };
      }
      return { upstreamId: a.upstreamId, name: a.name, reading };
    }),
  );
  const changed: Array<{ upstreamId: string; status: string; crossed: string | null }> = [];
  for (const r of results) {
    const applied = await db.transaction((tx) => applyBalanceReading(tx, r.upstreamId, r.name, r.reading, now()));
    if (applied) changed.push({ upstreamId: r.upstreamId, ...applied });
  }
  return { checked: results.length, results: changed };
}

/** The ids of upstreams whose account is dry: gateways send them no new connections. */
export async function dryUpstreamIds(db: DbOrTx): Promise<Set<string>> {
  const rows = await db.select({ id: upstreamAccounts.upstreamId }).from(upstreamAccounts).where(eq(upstreamAccounts.level, 'dry'));
  return new Set(rows.map((r) => r.id));
}

/** The balance watch's period: UPSTREAM_BALANCE_MINUTES (default 5). */
export const balanceWatchPeriodMs = (config: ApiConfig) => Math.round((config.upstreams?.balanceMinutes ?? DEFAULT_UPSTREAM_BALANCE_MINUTES) * 60_000);

/**
 * One tick of the balance watch on one server: the server that claims the current period reads
 * every account; the others (and this one again within the period) do nothing. Null when another
 * had the period.
 */
export function balanceWatchTick(db: Db, secrets: SecretBox, config: ApiConfig, by: string, now = Date.now()) {
  return runOncePerPeriod(db, { job: 'upstream-balances', periodMs: balanceWatchPeriodMs(config), by, now }, () =>
    checkUpstreamBalances(db, secrets, { allowPrivate: config.upstreams?.allowPrivate ?? true }),
  );
}

/** Each account's last balance and status, for the server's gauges (read when Prometheus scrapes). */
export async function upstreamAccountStates(db: DbOrTx) {
  return db
    .select({ upstreamId: upstreamAccounts.upstreamId, balanceBytes: upstreamAccounts.balanceBytes, status: upstreamAccounts.status })
    .from(upstreamAccounts);
}
