import { count, desc, ilike, or } from 'drizzle-orm';
import type { UsageType } from '@proxyhub/core';
import { users, type DbOrTx } from '@proxyhub/db';
import { usageByType } from './usage';
import { userRemaining } from './wallet';

export interface AdminUserRow {
  id: string;
  email: string;
  name: string;
  /** In bytes, as everywhere: the web formats them, the REST path gives the spec's GB. */
  remainingBytes: bigint;
  totalUsageBytes: bigint;
  authType: 'google' | 'email';
  emailVerified: boolean;
  createdAt: Date;
}

/** `%` and `_` in a search are literal characters, not patterns. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Users for the admin panel, newest first, searched by email or name, one page at a time. */
export async function listUsers(
  db: DbOrTx,
  input: { search?: string | undefined; page?: number | undefined; pageSize?: number | undefined } = {},
): Promise<{ users: AdminUserRow[]; total: number }> {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const q = input.search?.trim();
  const where = q ? or(ilike(users.email, `%${likeEscape(q)}%`), ilike(users.name, `%${likeEscape(q)}%`)) : undefined;
  const rows = await db
    .select({ u: users, remaining: userRemaining() })
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [total] = await db.select({ n: count() }).from(users).where(where);
  return {
    users: rows.map(({ u, remaining }) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      remainingBytes: remaining,
      totalUsageBytes: u.totalUsageBytes,
      authType: u.passwordHash === null && u.googleSub ? 'google' : 'email',
      emailVerified: u.emailVerifiedAt !== null,
      createdAt: u.createdAt,
    })),
    total: Number(total?.n ?? 0),
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
