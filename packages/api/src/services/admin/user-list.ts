import { and, asc, count, desc, ilike, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { ADMIN_USER_STATUSES, AdminUsersInput, UsageType } from '@proxyhub/core';
import { proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { usageByType } from '../usage/usage-counts';
import { containsPattern } from '../lib/like';
import { userRemaining } from '../money/wallet';

export type AdminUserStatus = (typeof ADMIN_USER_STATUSES)[number];

export interface AdminUserRow {
  id: string;
  email: string;
  name: string;
  /** In bytes, as everywhere: the web formats them, the REST path gives the spec's GB. */
  remainingBytes: bigint;
  totalUsageBytes: bigint;
  authType: 'google' | 'email';
  emailVerified: boolean;
  status: AdminUserStatus;
  createdAt: Date;
}

export type AdminUsersQuery = NonNullable<AdminUsersInput>;

const STATUS_WHERE: Record<AdminUserStatus, SQL> = {
  active: and(isNull(users.disabledAt), isNotNull(users.emailVerifiedAt))!,
  unverified: and(isNull(users.disabledAt), isNull(users.emailVerifiedAt))!,
  suspended: and(isNotNull(users.disabledAt), isNull(users.deletedAt))!,
  // Deleted by their owner: the anonymised row the ledger keeps (deleted_at implies disabled_at).
  deleted: isNotNull(users.deletedAt),
};

// Credits sort by the wallet's credits (remaining less what gateways hold right now): an indexable
// column, where remaining would be computed for every user.
const SORT_COLUMN = { createdAt: users.createdAt, email: users.email, credits: users.creditsBytes, usage: users.totalUsageBytes } as const;

export function statusOf(u: { disabledAt: Date | null; emailVerifiedAt: Date | null; deletedAt: Date | null }): AdminUserStatus {
  return u.deletedAt ? 'deleted' : u.disabledAt ? 'suspended' : u.emailVerifiedAt ? 'active' : 'unverified';
}

/**
 * Users for the admin panel, one page at a time: searched by email, name or proxy user id
 * (substring, any case, trigram-indexed), filtered by status, sorted (newest first by default).
 */
export async function listUsers(db: DbOrTx, input: AdminUsersQuery = {}): Promise<{ users: AdminUserRow[]; total: number; page: number; pageSize: number }> {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const q = (input.q ?? input.search)?.trim();
  const filters: SQL[] = [];
  if (q) {
    const pattern = containsPattern(q);
    // A union of three trigram-indexed lookups: an OR across the two tables reads every user.
    const byEmail = db.select({ id: users.id }).from(users).where(ilike(users.email, pattern));
    const byName = db.select({ id: users.id }).from(users).where(ilike(users.name, pattern));
    const byProxyId = db.select({ id: proxyAccounts.userId }).from(proxyAccounts).where(ilike(proxyAccounts.proxyUserId, pattern));
    filters.push(sql`${users.id} in (${byEmail} union ${byName} union ${byProxyId})`);
  }
  if (input.status) filters.push(STATUS_WHERE[input.status]);
  const where = filters.length ? and(...filters) : undefined;
  const column = SORT_COLUMN[input.sort ?? 'createdAt'];
  const direction = (input.order ?? (input.sort === 'email' ? 'asc' : 'desc')) === 'asc' ? asc : desc;
  const [rows, [total]] = await Promise.all([
    db
      .select({ u: users, remaining: userRemaining() })
      .from(users)
      .where(where)
      .orderBy(direction(column), direction(users.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(users).where(where),
  ]);
  return {
    users: rows.map(({ u, remaining }) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      remainingBytes: remaining,
      totalUsageBytes: u.totalUsageBytes,
      authType: u.passwordHash === null && u.googleSub ? 'google' : 'email',
      emailVerified: u.emailVerifiedAt !== null,
      status: statusOf(u),
      createdAt: u.createdAt,
    })),
    total: Number(total?.n ?? 0),
    page,
    pageSize,
  };
}

export interface UsageStat {
  usage_type: UsageType;
  total_bytes: bigint;
  total_sessions: number;
  last_updated: Date | null;
}

/** Totals per usage type from what the gateways reported (the gateway area's query); always the three types. */
export async function globalUsage(db: DbOrTx): Promise<{ stats: UsageStat[] }> {
  const rows = await usageByType(db);
  return {
    stats: rows.map((r) => ({
      usage_type: r.usageType,
      total_bytes: r.totalBytes,
      total_sessions: r.totalSessions,
      last_updated: r.lastUpdated,
    })),
  };
}
