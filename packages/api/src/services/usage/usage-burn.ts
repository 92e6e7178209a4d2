/**
 * The bandwidth-burn advisor (GET /api/usage/burn): of what a user was billed in a range, the bytes
 * that went to hosts of core's host categories (analytics, advertising, fonts, media CDNs, telemetry,
 * captcha and challenge), per host and priced at the user's own rate: what blocking them in the
 * account's target rules would have saved.
 */
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import { BYTES_PER_GB, DomainError, hostCategory, parseIsoTime, type HostCategory, type UsageBurnInput } from '@proxyhub/core';
import { connectionLog, users, type DbOrTx } from '@proxyhub/db';
import { getPricing } from '../money/pricing';

/** Hosts listed at most (the largest first); the totals count every host. */
export const BURN_MAX_HOSTS = 100;
const DAY_MS = 86_400_000;

export interface UsageBurn {
  from: string;
  to: string;
  /** The rate the costs are priced at: the user's own, or the base price per GB. */
  pricePerGbCents: number;
  hosts: { host: string; category: HostCategory; bytes: string; costCents: number }[];
  totalBytes: string;
  blockableBytes: string;
  blockableCostCents: number;
}

/** Bytes at a price per GB, in whole cents (rounded half up), in integers. */
export function bytesCostCents(bytes: bigint, pricePerGbCents: number): number {
  return Number((bytes * BigInt(pricePerGbCents) + BYTES_PER_GB / 2n) / BYTES_PER_GB);
}

/** `from` to `to` as a half-open range; a date alone as `to` takes in its whole day. Default: this UTC month so far. */
export function burnRange(input: UsageBurnInput, now = Date.now()): { from: Date; to: Date } {
  const d = new Date(now);
  const from = input?.from ? parseIsoTime(input.from) : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const to = input?.to ? new Date(parseIsoTime(input.to).getTime() + (input.to.includes('T') ? 0 : DAY_MS)) : new Date(now);
  if (from.getTime() > to.getTime()) throw new DomainError('BAD_REQUEST', 'From must not be after To');
  return { from, to };
}

export async function usageBurn(db: DbOrTx, userId: string, input: UsageBurnInput, now = Date.now()): Promise<UsageBurn> {
  const { from, to } = burnRange(input, now);
  // The host is the target without its port (an IPv6 literal keeps its brackets), as the usage panel's byTarget.
  const host = sql<string>`regexp_replace(${connectionLog.target}, ':[0-9]+$', '')`;
  const [rows, [user], pricing] = await Promise.all([
    db
      .select({ host, bytes: sql<string>`sum(${connectionLog.billedBytes})::text` })
      .from(connectionLog)
      .where(and(eq(connectionLog.userId, userId), gte(connectionLog.startedAt, from), lt(connectionLog.startedAt, to)))
      .groupBy(sql`1`),
    db.select({ rate: users.pricePerGbCents }).from(users).where(eq(users.id, userId)).limit(1),
    getPricing(db),
  ]);
  const rate = user?.rate ?? pricing.pricePerGbCents;
  let totalBytes = 0n;
  let blockableBytes = 0n;
  const burning: { host: string; category: HostCategory; bytes: bigint }[] = [];
  for (const r of rows) {
    const bytes = BigInt(r.bytes);
    totalBytes += bytes;
    const category = hostCategory(r.host);
    if (!category || bytes === 0n) continue;
    blockableBytes += bytes;
    burning.push({ host: r.host, category, bytes });
  }
  burning.sort((a, b) => (a.bytes === b.bytes ? (a.host < b.host ? -1 : 1) : a.bytes > b.bytes ? -1 : 1));
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    pricePerGbCents: rate,
    hosts: burning
      .slice(0, BURN_MAX_HOSTS)
      .map((h) => ({ host: h.host, category: h.category, bytes: h.bytes.toString(), costCents: bytesCostCents(h.bytes, rate) })),
    totalBytes: totalBytes.toString(),
    blockableBytes: blockableBytes.toString(),
    blockableCostCents: bytesCostCents(blockableBytes, rate),
  };
}
