/**
 * The spending rule, and the caps it reads. `spendable` is the one answer to "what may this account
 * still lease, and if nothing, why": logins ask its first half (the account's standing), leases the
 * whole of it, from rows read here (locked, for a lease).
 *
 * Spending caps, one mechanism for two rows: an associated batch (its accounts together never spend
 * more than the batch brought, whoever still holds their passwords) and a proxy account (a
 * sub-account's own limits: a lifetime cap, a UTC-day and a UTC-month limit, the tightest bounding). What may still be leased under a cap is the cap less what was used and
 * what open leases hold. With `lock` (lease reservations) the capped rows are locked in id order, so
 * two reservations (any gateway) cannot take the same room; the wallet is locked first, as
 * everywhere. Rows without a cap are neither read nor locked: most accounts have none.
 */
import { and, asc, isNotNull, or, sql } from 'drizzle-orm';
import { batches, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf, arrayOf } from '../lib/any-of';
import { openLeaseBytesBy, walletKey, walletsCredits, type AccountWallet } from './wallet';

export interface CapRoom {
  /** What may still be leased under the cap; null: no cap. */
  room: bigint | null;
  /** What the open leases under the cap hold (0 without a cap). */
  held: bigint;
}

const CAPPED = {
  batch: { table: batches, id: batches.id, cap: batches.capBytes, used: batches.capUsedBytes, leasesBy: proxyAccounts.batchId },
} as const;

export type CappedKind = 'batch' | 'account';

/** A cap with room to spend from (its `room` is counted down as grants take it). */
export const hasCap = (c: CapRoom | undefined): c is CapRoom & { room: bigint } => c !== undefined && c.room !== null;

/** The UTC day (YYYY-MM-DD) of `now`, and the first day of its month: the periods of the daily and monthly limits. */
export function usagePeriod(now = new Date()): { day: string; monthStart: string } {
  const day = now.toISOString().slice(0, 10);
  return { day, monthStart: `${day.slice(0, 8)}01` };
}

/** What an account used this UTC day and month: its counters, unless they are for an earlier day or month. */
export function periodUsed(a: { dayUsedBytes: bigint; monthUsedBytes: bigint; usageDay: string | null }, now = new Date()): { day: bigint; month: bigint } {
  const p = usagePeriod(now);
  return {
    day: a.usageDay === p.day ? a.dayUsedBytes : 0n,
    month: a.usageDay !== null && a.usageDay >= p.monthStart ? a.monthUsedBytes : 0n,
  };
}

/** The least of several rooms (null: none bounds). */
const least = (rooms: Array<bigint | null>): bigint | null => rooms.reduce<bigint | null>((m, r) => (r === null ? m : m === null || r < m ? r : m), null);

/** The room under the caps of several batches or accounts, in two queries at most; every id asked is in the map. */
export async function capRooms(tx: DbOrTx, kind: CappedKind, ids: readonly string[], opts: { lock: boolean }): Promise<Map<string, CapRoom>> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, CapRoom>(sorted.map((id) => [id, { room: null, held: 0n }]));
  if (!sorted.length) return out;
  // An account's room is the tightest of its cap, what is left of its day and of its month.
  const rows: Array<{ id: string; limits: Array<bigint | null> }> = [];
  if (kind === 'batch') {
    const c = CAPPED.batch;
    const query = tx
      .select({ id: c.id, cap: c.cap, used: c.used })
      .from(c.table)
      .where(and(anyOf(c.id, sorted), isNotNull(c.cap)))
      .orderBy(asc(c.id));
    for (const r of opts.lock ? await query.for('update') : await query) rows.push({ id: r.id, limits: [r.cap! - r.used] });
  } else {
    const a = proxyAccounts;
    const query = tx
      .select({
        id: a.id,
        cap: a.capBytes,
        used: a.usedBytes,
        daily: a.dailyLimitBytes,
        monthly: a.monthlyLimitBytes,
        dayUsedBytes: a.dayUsedBytes,
        monthUsedBytes: a.monthUsedBytes,
        usageDay: a.usageDay,
      })
      .from(a)
      .where(and(anyOf(a.id, sorted), or(isNotNull(a.capBytes), isNotNull(a.dailyLimitBytes), isNotNull(a.monthlyLimitBytes))))
      .orderBy(asc(a.id));
    const now = new Date();
    for (const r of opts.lock ? await query.for('update') : await query) {
      const used = periodUsed(r, now);
      rows.push({
        id: r.id,
        limits: [r.cap === null ? null : r.cap - r.used, r.daily === null ? null : r.daily - used.day, r.monthly === null ? null : r.monthly - used.month],
      });
    }
  }
  const held = await openLeaseBytesBy(
    tx,
    kind === 'batch' ? CAPPED.batch.leasesBy : proxyAccounts.id,
    rows.map((r) => r.id),
  );
  for (const r of rows) {
    const h = held.get(r.id) ?? 0n;
    const room = least(r.limits)! - h;
    out.set(r.id, { room: room > 0n ? room : 0n, held: h });
  }
  return out;
}

/**
 * Reported usage counts against the caps (bytes per batch or account id): one statement, however
 * many ids. An account's day and month counters start again on a report in a later UTC day or month.
 */
export async function countCapUsage(tx: DbOrTx, kind: CappedKind, usedById: ReadonlyMap<string, bigint>, now = new Date()): Promise<void> {
  // In id order, as capRooms locks them.
  const counted = [...usedById].filter(([, used]) => used !== 0n).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!counted.length) return;
  const c = kind === 'batch' ? CAPPED.batch : { table: proxyAccounts, id: proxyAccounts.id, used: proxyAccounts.usedBytes };
  const ids = arrayOf(
    c.id,
    counted.map(([id]) => id),
  );
  const bytes = arrayOf(
    c.used,
    counted.map(([, used]) => used),
  );
  if (kind === 'batch') {
    await tx.execute(
      sql`update ${c.table} set ${sql.identifier(c.used.name)} = ${c.used} + d.used
          from unnest(${ids}, ${bytes}) as d(id, used) where ${c.id} = d.id`,
    );
    return;
  }
  const a = proxyAccounts;
  const p = usagePeriod(now);
  const col = (x: { name: string }) => sql.identifier(x.name);
  await tx.execute(
    sql`update ${a} set ${col(a.usedBytes)} = ${a.usedBytes} + d.used,
          ${col(a.dayUsedBytes)} = case when ${a.usageDay} = ${p.day}::date then ${a.dayUsedBytes} + d.used else d.used end,
          ${col(a.monthUsedBytes)} = case when ${a.usageDay} >= ${p.monthStart}::date then ${a.monthUsedBytes} + d.used else d.used end,
          ${col(a.usageDay)} = ${p.day}::date
        from unnest(${ids}, ${bytes}) as d(id, used) where ${a.id} = d.id`,
  );
}

// --- The spending rule --------------------------------------------------------------------------

/**
 * Why an account may not spend, each with its own remedy: `wallet_empty` a top-up, `cap_reached`
 * a higher limit on the proxy account (its own or its batch's: a top-up would not help),
 * `suspended` the owner's suspension lifted, `disabled` the account enabled again, `expired` a later
 * expiry on the proxy account. `cap_reached` covers the daily and monthly limits too.
 */
export type SpendRefusal = 'wallet_empty' | 'cap_reached' | 'suspended' | 'disabled' | 'expired';

export type Spendable =
  /** `bytes`: what may be leased now; `pool`: what the wallet's accounts share (within a batch cap), which a fair share divides; `caps`: the caps a grant counts down. */
  { ok: true; bytes: bigint; pool: bigint; caps: Array<CapRoom & { room: bigint }> } | { ok: false; reason: SpendRefusal };

/** What bounds the spending of some accounts: their wallets' credits and the room under their caps. */
export interface Funds {
  /** By walletKey. */
  credits: Map<string, bigint>;
  /** By batch id. */
  batchRoom: Map<string, CapRoom>;
  /** By proxy account id. */
  accountRoom: Map<string, CapRoom>;
}

/** The account's standing, before any money: suspended (its owner), disabled or expired (the account itself). */
export function standing(acc: AccountWallet): Extract<Spendable, { ok: false }> | null {
  if (acc.suspended) return { ok: false, reason: 'suspended' };
  if (acc.disabled) return { ok: false, reason: 'disabled' };
  if (acc.expiresAt !== null && acc.expiresAt.getTime() <= Date.now()) return { ok: false, reason: 'expired' };
  return null;
}

/** `bytes`, or less when the cap has less room. */
const within = (bytes: bigint, cap: CapRoom | undefined): bigint => (hasCap(cap) && cap.room < bytes ? cap.room : bytes);

/**
 * The spending rule: an account may lease its wallet's credits within its batch's cap and within
 * its own cap. Nothing left is a reached cap when a cap has no room (topping up would not help),
 * else an empty wallet. Grants count `funds` down, so accounts asked after see what is left.
 */
export function spendable(acc: AccountWallet, funds: Funds): Spendable {
  const refused = standing(acc);
  if (refused) return refused;
  const batchCap = acc.capBatchId ? funds.batchRoom.get(acc.capBatchId) : undefined;
  const accountCap = funds.accountRoom.get(acc.proxyAccountId);
  const caps = [batchCap, accountCap].filter(hasCap);
  const pool = within(funds.credits.get(walletKey(acc.wallet)) ?? 0n, batchCap);
  const bytes = within(pool, accountCap);
  if (bytes > 0n) return { ok: true, bytes, pool, caps };
  return { ok: false, reason: caps.some((c) => c.room === 0n) ? 'cap_reached' : 'wallet_empty' };
}

/**
 * Reads what `spendable` needs for these accounts, in a few queries whatever their number. With
 * `lock` (lease reservations) the wallets are locked first, then the batch caps, then the account
 * caps, each in id order, as everywhere.
 */
export async function readFunds(tx: DbOrTx, accs: readonly AccountWallet[], opts: { lock: boolean }): Promise<Funds> {
  const live = accs.filter((a) => !a.disabled);
  const credits = await walletsCredits(
    tx,
    live.map((a) => a.wallet),
    opts,
  );
  const batchRoom = await capRooms(
    tx,
    'batch',
    live.flatMap((a) => (a.capBatchId ? [a.capBatchId] : [])),
    opts,
  );
  // A capped account (a sub-account) never leases beyond its own cap, whatever the wallet holds.
  const accountRoom = await capRooms(
    tx,
    'account',
    live.map((a) => a.proxyAccountId),
    opts,
  );
  return { credits, batchRoom, accountRoom };
}
