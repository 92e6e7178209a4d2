/**
 * The spending rule, and the caps it reads. `spendable` is the one answer to "what may this account
 * still lease, and if nothing, why": logins ask its first half (the account's standing), leases the
 * whole of it, from rows read here (locked, for a lease).
 *
 * Spending caps, one mechanism for two rows: an associated batch (its accounts together never spend
 * more than the batch brought, whoever still holds their passwords) and a proxy account (a
 * sub-account's own limit). What may still be leased under a cap is the cap less what was used and
 * what open leases hold. With `lock` (lease reservations) the capped rows are locked in id order, so
 * two reservations (any gateway) cannot take the same room; the wallet is locked first, as
 * everywhere. Rows without a cap are neither read nor locked: most accounts have none.
 */
import { and, asc, isNotNull, sql } from 'drizzle-orm';
import { batches, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf, arrayOf } from './any-of';
import { openLeaseBytesBy, walletKey, walletsCredits, type AccountWallet } from './wallet';

export interface CapRoom {
  /** What may still be leased under the cap; null: no cap. */
  room: bigint | null;
  /** What the open leases under the cap hold (0 without a cap). */
  held: bigint;
}

const CAPPED = {
  batch: { table: batches, id: batches.id, cap: batches.capBytes, used: batches.capUsedBytes, leasesBy: proxyAccounts.batchId },
  account: {
    table: proxyAccounts,
    id: proxyAccounts.id,
    cap: proxyAccounts.capBytes,
    used: proxyAccounts.usedBytes,
    leasesBy: proxyAccounts.id,
  },
} as const;

export type CappedKind = keyof typeof CAPPED;

/** A cap with room to spend from (its `room` is counted down as grants take it). */
export const hasCap = (c: CapRoom | undefined): c is CapRoom & { room: bigint } => c !== undefined && c.room !== null;

/** The room under the caps of several batches or accounts, in two queries at most; every id asked is in the map. */
export async function capRooms(tx: DbOrTx, kind: CappedKind, ids: readonly string[], opts: { lock: boolean }): Promise<Map<string, CapRoom>> {
  const sorted = [...new Set(ids)].sort();
  const out = new Map<string, CapRoom>(sorted.map((id) => [id, { room: null, held: 0n }]));
  if (!sorted.length) return out;
  const c = CAPPED[kind];
  const query = tx
    .select({ id: c.id, cap: c.cap, used: c.used })
    .from(c.table)
    .where(and(anyOf(c.id, sorted), isNotNull(c.cap)))
    .orderBy(asc(c.id));
  const rows = opts.lock ? await query.for('update') : await query;
  const held = await openLeaseBytesBy(
    tx,
    c.leasesBy,
    rows.map((r) => r.id),
  );
  for (const r of rows) {
    const h = held.get(r.id) ?? 0n;
    const room = r.cap! - r.used - h;
    out.set(r.id, { room: room > 0n ? room : 0n, held: h });
  }
  return out;
}

/** Reported usage counts against the caps (bytes per batch or account id): one statement, however many ids. */
export async function countCapUsage(tx: DbOrTx, kind: CappedKind, usedById: ReadonlyMap<string, bigint>): Promise<void> {
  const c = CAPPED[kind];
  // In id order, as capRooms locks them.
  const counted = [...usedById].filter(([, used]) => used !== 0n).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!counted.length) return;
  const ids = arrayOf(
    c.id,
    counted.map(([id]) => id),
  );
  const bytes = arrayOf(
    c.used,
    counted.map(([, used]) => used),
  );
  await tx.execute(
    sql`update ${c.table} set ${sql.identifier(c.used.name)} = ${c.used} + d.used
          from unnest(${ids}, ${bytes}) as d(id, used) where ${c.id} = d.id`,
  );
}

// --- The spending rule --------------------------------------------------------------------------

/**
 * Why an account may not spend, each with its own remedy: `wallet_empty` a top-up, `cap_reached`
 * a higher limit on the proxy account (its own or its batch's: a top-up would not help),
 * `suspended` the owner's suspension lifted, `disabled` the account enabled again.
 */
export type SpendRefusal = 'wallet_empty' | 'cap_reached' | 'suspended' | 'disabled';

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

/** The account's standing, before any money: suspended (its owner) or disabled (the account itself). */
export function standing(acc: AccountWallet): Extract<Spendable, { ok: false }> | null {
  if (acc.suspended) return { ok: false, reason: 'suspended' };
  if (acc.disabled) return { ok: false, reason: 'disabled' };
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
