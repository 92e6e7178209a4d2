/**
 * Byte leases: how the gateway spends credits without a database call per chunk.
 *
 * reserveLease moves n bytes from the wallet into a gateway_leases row (granted_bytes) under a row
 * lock, so two gateways can never lease the same byte. A report adds used_bytes (never beyond what
 * was granted), the wallet's total usage and the hourly usage in one transaction, applied once per
 * (gateway_id, seq). Settling a lease returns granted - used to the wallet. Leases of a gateway that
 * stops reporting expire and are settled by the reconciliation job. Throughout:
 *   sum(credit_entries) = credits_bytes + sum(open leases: granted - used) + total_usage_bytes.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { GatewayReportInput, GatewayReserveLeaseInput, GatewayReserveLeasesInput } from '@proxyhub/core';
import { gatewayLeases, gatewayReports, proxyAccounts, type Db, type DbOrTx } from '@proxyhub/db';
import { arrayOf } from '../lib/any-of';
import { countCapUsage, readFunds, spendable, standing, type SpendRefusal } from '../money/caps';
import { emitProxyAccountLimitReached } from '../notify/webhooks';
import { chargeBuckets, openBuckets, saveRemaining, settleBucketLeases, type LeaseSettlement } from '../money/plan-buckets';
import { addHourlyUsage, splitUsage, type HourlyUsageDelta, type UsageSplit } from '../usage/usage-counts';
import {
  adjustWallet,
  adjustWallets,
  findAccountWallets,
  selectAccountWallets,
  toAccountWallet,
  walletCredits,
  walletKey,
  walletLeaseHolders,
  type Wallet,
  type WalletDelta,
} from '../money/wallet';

/** A lease of a gateway that has not reported for this long is settled by the reconciliation job. */
export const LEASE_TTL_MS = 2 * 60_000;
/**
 * Upper bound of one lease, whatever a gateway asks. Our gateway asks for much less: about 10 s of
 * the account's observed traffic, at most 128 MiB, two at a time; that is what a gateway that
 * vanishes with its journal can leave unbilled (see docs/architecture.md, Proxy gateway).
 */
export const MAX_LEASE_BYTES = 1024n * 1024n * 1024n;

/** No lease is cut below this by the fair share (what is left is still granted whole). */
export const MIN_SHARE_BYTES = 16n * 1024n;

/**
 * The most one lease may take of what a wallet has left: an equal part for each other account
 * holding leases on it and one for this one. Many accounts on one small allowance (a shop batch, a
 * user's sub-accounts) then each get a lease, instead of the first ones tying it all up in leases
 * they barely use while the next are refused with the balance unspent. An account alone on its
 * wallet may take all of it, as before.
 */
function fairShare(pool: bigint, otherHolders: number): bigint {
  if (otherHolders === 0) return pool;
  const share = pool / BigInt(otherHolders + 1);
  return share > MIN_SHARE_BYTES ? share : MIN_SHARE_BYTES;
}

/** `empty`: the wallet is; `cap_reached`: the proxy account's limit (its own or its batch's) is, while the wallet may still hold data. */
export type LeaseOutcome = 'granted' | 'empty' | 'cap_reached' | 'disabled' | 'expired' | 'unknown_account';

export interface LeaseGrant {
  leaseId: string | null;
  grantedBytes: bigint;
  outcome: LeaseOutcome;
}

/** How a lease answers each reason of the spending rule (the gateway needs no more than this). */
const REFUSED: Record<SpendRefusal, LeaseOutcome> = {
  wallet_empty: 'empty',
  cap_reached: 'cap_reached',
  suspended: 'disabled',
  disabled: 'disabled',
  expired: 'expired',
};
const refused = (outcome: LeaseOutcome): LeaseGrant => ({ leaseId: null, grantedBytes: 0n, outcome });

export async function reserveLease(tx: DbOrTx, input: GatewayReserveLeaseInput, ttlMs = LEASE_TTL_MS): Promise<LeaseGrant> {
  const [grant] = await reserveLeases(tx, { gatewayId: input.gatewayId, items: [input] }, ttlMs);
  return grant!;
}

/**
 * Reserves a lease for each item, in order, as if one by one, in a fixed number of statements
 * whatever their number (a gateway's cold start asks for a thousand at once). Must run inside a
 * transaction: the wallets, batch caps and account caps involved are locked (readFunds), then every
 * grant is worked out from those rows by the spending rule and written at once.
 */
export async function reserveLeases(tx: DbOrTx, input: GatewayReserveLeasesInput, ttlMs = LEASE_TTL_MS): Promise<LeaseGrant[]> {
  const accs = await findAccountWallets(
    tx,
    input.items.map((i) => i.proxyAccountId),
  );
  const live = [...accs.values()].filter((a) => !standing(a));
  const funds = await readFunds(tx, live, { lock: true });
  const holders = await walletLeaseHolders(
    tx,
    live.map((a) => a.wallet),
  );
  // After the wallets (readFunds locked them): the plan bytes among their credits, soonest end first.
  const buckets = await openBuckets(
    tx,
    live.flatMap((a) => ('userId' in a.wallet ? [a.wallet.userId] : [])),
  );
  const bucketRemaining = new Map<string, bigint>();
  const expiresAt = new Date(Date.now() + ttlMs);
  const leases: Array<{ id: string; proxyAccountId: string; grantedBytes: bigint; planBucketId: string | null }> = [];
  const wallets = new WalletDeltas();
  const capReached: string[] = [];
  const grants = input.items.map((item): LeaseGrant => {
    const acc = accs.get(item.proxyAccountId);
    if (!acc) return refused('unknown_account');
    const may = spendable(acc, funds);
    if (!may.ok) {
      // The customer's systems hear of it (webhooks.ts sends it once per cap value).
      if (may.reason === 'cap_reached') capReached.push(acc.proxyAccountId);
      return refused(REFUSED[may.reason]);
    }
    const key = walletKey(acc.wallet);
    let granted = BigInt(item.bytes);
    if (granted > MAX_LEASE_BYTES) granted = MAX_LEASE_BYTES;
    const holding = holders.get(key) ?? new Set<string>();
    const share = fairShare(may.pool, holding.size - (holding.has(acc.proxyAccountId) ? 1 : 0));
    if (granted > share) granted = share;
    if (granted > may.bytes) granted = may.bytes;
    // A lease draws from one source: the bucket ending soonest while it has bytes, then pay-as-you-go.
    const bucket = 'userId' in acc.wallet ? buckets.get(acc.wallet.userId)?.find((b) => b.remainingBytes > 0n) : undefined;
    if (bucket) {
      if (granted > bucket.remainingBytes) granted = bucket.remainingBytes;
      bucket.remainingBytes -= granted;
      bucketRemaining.set(bucket.id, bucket.remainingBytes);
    }
    // What this grant takes is gone for the items after it.
    funds.credits.set(key, funds.credits.get(key)! - granted);
    holders.set(key, holding.add(acc.proxyAccountId));
    for (const c of may.caps) c.room -= granted;
    wallets.add(acc.wallet, -granted, 0n);
    const id = randomUUID();
    leases.push({ id, proxyAccountId: acc.proxyAccountId, grantedBytes: granted, planBucketId: bucket?.id ?? null });
    return { leaseId: id, grantedBytes: granted, outcome: 'granted' };
  });
  await wallets.apply(tx);
  await saveRemaining(tx, bucketRemaining);
  await emitProxyAccountLimitReached(tx, capReached);
  if (leases.length) {
    const l = gatewayLeases;
    await tx.execute(
      sql`insert into ${l} (${sql.identifier(l.id.name)}, ${sql.identifier(l.gatewayId.name)}, ${sql.identifier(l.proxyAccountId.name)}, ${sql.identifier(l.grantedBytes.name)}, ${sql.identifier(l.expiresAt.name)}, ${sql.identifier(l.planBucketId.name)})
          select n.id, ${input.gatewayId}::text, n.account, n.granted, ${expiresAt.toISOString()}::timestamptz, nullif(n.bucket, '')::uuid from unnest(${arrayOf(
            l.id,
            leases.map((x) => x.id),
          )}, ${arrayOf(
            l.proxyAccountId,
            leases.map((x) => x.proxyAccountId),
          )}, ${arrayOf(
            l.grantedBytes,
            leases.map((x) => x.grantedBytes),
          )}, ${sql.param(leases.map((x) => x.planBucketId ?? ''))}::text[]) as n(id, account, granted, bucket)`,
    );
  }
  return grants;
}

export interface ReportResult {
  /** False when this (gatewayId, seq) was applied before: nothing changed. */
  applied: boolean;
  /** Leases the gateway should forget: unknown, or already settled (e.g. reconciled after a timeout). */
  dropped: string[];
}

/** Leases with the wallets their accounts spend, locked for the rest of the transaction. */
function leaseRows(tx: DbOrTx, where: SQL | undefined) {
  return selectAccountWallets(tx, {
    id: gatewayLeases.id,
    grantedBytes: gatewayLeases.grantedBytes,
    usedBytes: gatewayLeases.usedBytes,
    settledAt: gatewayLeases.settledAt,
    planBucketId: gatewayLeases.planBucketId,
  })
    .innerJoin(gatewayLeases, eq(gatewayLeases.proxyAccountId, proxyAccounts.id))
    .where(where)
    .for('update', { of: gatewayLeases });
}

class WalletDeltas {
  private readonly map = new Map<string, WalletDelta>();
  add(wallet: Wallet, credits: bigint, usage: bigint) {
    const k = walletKey(wallet);
    const cur = this.map.get(k) ?? { wallet, credits: 0n, usage: 0n };
    cur.credits += credits;
    cur.usage += usage;
    this.map.set(k, cur);
  }
  apply(tx: DbOrTx) {
    return adjustWallets(tx, [...this.map.values()]);
  }
}

/**
 * Applies one gateway report exactly once. Must run inside a transaction. `whenClaimed` runs once
 * the report is known to be new, before its usage is applied: the usage locks the user's wallet and
 * hourly rows until commit, so work done under those locks (thousands of connection records)
 * would serialise every report of that user across gateways.
 */
export async function applyGatewayReport(
  tx: DbOrTx,
  input: GatewayReportInput,
  { ttlMs = LEASE_TTL_MS, whenClaimed }: { ttlMs?: number; whenClaimed?: () => Promise<unknown> } = {},
): Promise<ReportResult> {
  const [fresh] = await tx
    .insert(gatewayReports)
    .values({ gatewayId: input.gatewayId, seq: BigInt(input.seq) })
    .onConflictDoNothing()
    .returning({ seq: gatewayReports.seq });
  if (!fresh) return { applied: false, dropped: [] };
  await whenClaimed?.();

  const merged = new Map<string, { up: bigint; down: bigint; sessions: number; release: boolean; parts: UsageSplit[] }>();
  for (const i of input.items) {
    const m = merged.get(i.leaseId) ?? { up: 0n, down: 0n, sessions: 0, release: false, parts: [] };
    m.up += BigInt(i.bytesUp);
    m.down += BigInt(i.bytesDown);
    m.sessions += i.sessions;
    m.release ||= i.release;
    for (const p of i.parts ?? []) m.parts.push({ ...p, bytesUp: BigInt(p.bytesUp), bytesDown: BigInt(p.bytesDown) });
    merged.set(i.leaseId, m);
  }
  const dropped: string[] = [];
  const wallets = new WalletDeltas();
  const hourly = new Map<string, HourlyUsageDelta>();
  const batchUsage = new Map<string, bigint>();
  const accountUsage = new Map<string, bigint>();
  const bucketLeases: LeaseSettlement[] = [];
  const charged = new Map<string, bigint>();
  if (merged.size) {
    const rows = await leaseRows(tx, and(inArray(gatewayLeases.id, [...merged.keys()]), eq(gatewayLeases.gatewayId, input.gatewayId)));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [leaseId, m] of merged) {
      const row = byId.get(leaseId);
      if (!row) {
        dropped.push(leaseId);
        continue;
      }
      const acc = toAccountWallet(row);
      const wanted = m.up + m.down;
      const room = row.settledAt ? 0n : row.grantedBytes - row.usedBytes;
      const fromLease = wanted < room ? wanted : room;
      // Bytes beyond the lease (only after a lease was reconciled under a live gateway): charged
      // from the wallet as far as it goes, so the ledger invariant holds.
      let extra = wanted - fromLease;
      if (extra > 0n) {
        const credits = await walletCredits(tx, acc.wallet, { lock: true });
        if (extra > credits) extra = credits;
        await adjustWallet(tx, acc.wallet, { credits: -extra, usage: 0n });
        if ('userId' in acc.wallet) charged.set(acc.wallet.userId, (charged.get(acc.wallet.userId) ?? 0n) + extra);
      }
      const counted = fromLease + extra;
      const up = m.up < counted ? m.up : counted;
      let returned = 0n;
      if (row.settledAt) {
        dropped.push(leaseId);
      } else {
        const release = m.release;
        if (release) returned = row.grantedBytes - row.usedBytes - fromLease;
        if (fromLease > 0n || release) {
          await tx
            .update(gatewayLeases)
            .set({ usedBytes: sql`${gatewayLeases.usedBytes} + ${fromLease}`, ...(release ? { settledAt: sql`now()` } : {}) })
            .where(eq(gatewayLeases.id, leaseId));
        }
      }
      wallets.add(acc.wallet, returned, counted);
      if (row.planBucketId) bucketLeases.push({ leaseId, bucketId: row.planBucketId, used: fromLease, returned });
      if (acc.capBatchId) batchUsage.set(acc.capBatchId, (batchUsage.get(acc.capBatchId) ?? 0n) + counted);
      accountUsage.set(acc.proxyAccountId, (accountUsage.get(acc.proxyAccountId) ?? 0n) + counted);
      for (const part of splitUsage(m.parts, up, counted - up, m.sessions)) {
        const key = [acc.proxyAccountId, part.protocol, part.country, part.state, part.city, part.upstreamId].join('\0');
        const h = hourly.get(key) ?? { ...part, proxyAccountId: acc.proxyAccountId, usageType: acc.usageType, bytesUp: 0n, bytesDown: 0n, sessions: 0 };
        h.bytesUp += part.bytesUp;
        h.bytesDown += part.bytesDown;
        h.sessions += part.sessions;
        hourly.set(key, h);
      }
    }
  }
  await wallets.apply(tx);
  await settleBucketLeases(tx, bucketLeases);
  for (const [userId, bytes] of charged) await chargeBuckets(tx, userId, bytes);
  await countCapUsage(tx, 'batch', batchUsage);
  await countCapUsage(tx, 'account', accountUsage);
  await addHourlyUsage(tx, [...hourly.values()]);
  // Every report is also the gateway's heartbeat: its open leases stay alive.
  await tx
    .update(gatewayLeases)
    .set({ expiresAt: new Date(Date.now() + ttlMs) })
    .where(and(eq(gatewayLeases.gatewayId, input.gatewayId), isNull(gatewayLeases.settledAt)));
  return { applied: true, dropped };
}

export interface ReleaseInput {
  gatewayId?: string;
  leaseIds?: string[];
  /** Only leases whose heartbeat expired before this time (reconciliation). */
  expiredBefore?: Date;
}

/** Settles open leases: what was granted and not used goes back to each wallet. */
export async function releaseLeases(tx: DbOrTx, input: ReleaseInput): Promise<{ released: number; returnedBytes: bigint }> {
  const conds: SQL[] = [isNull(gatewayLeases.settledAt)];
  if (input.gatewayId !== undefined) conds.push(eq(gatewayLeases.gatewayId, input.gatewayId));
  if (input.leaseIds !== undefined) {
    if (!input.leaseIds.length) return { released: 0, returnedBytes: 0n };
    conds.push(inArray(gatewayLeases.id, input.leaseIds));
  }
  if (input.expiredBefore) conds.push(lt(gatewayLeases.expiresAt, input.expiredBefore));
  const rows = await leaseRows(tx, and(...conds));
  if (!rows.length) return { released: 0, returnedBytes: 0n };
  const wallets = new WalletDeltas();
  const bucketLeases: LeaseSettlement[] = [];
  let returnedBytes = 0n;
  for (const r of rows) {
    const back = r.grantedBytes - r.usedBytes;
    returnedBytes += back;
    wallets.add(toAccountWallet(r).wallet, back, 0n);
    if (r.planBucketId) bucketLeases.push({ leaseId: r.id, bucketId: r.planBucketId, used: 0n, returned: back });
  }
  await tx
    .update(gatewayLeases)
    .set({ settledAt: sql`now()` })
    .where(
      inArray(
        gatewayLeases.id,
        rows.map((r) => r.id),
      ),
    );
  await wallets.apply(tx);
  await settleBucketLeases(tx, bucketLeases);
  return { released: rows.length, returnedBytes };
}

/** The periodic job: settles leases of gateways that stopped reporting (crashed) for LEASE_TTL_MS. */
export function reconcileExpiredLeases(db: Db, now = new Date()) {
  return db.transaction((tx) => releaseLeases(tx, { expiredBefore: now }));
}
