import { count, desc, ilike, or, sql } from 'drizzle-orm';
import { bytesToGbTruncated, USAGE_TYPES, type UsageType } from '@proxyhub/core';
import { usageHourly, users, type DbOrTx } from '@proxyhub/db';

export interface AdminUserRow {
  id: string;
  email: string;
  name: string;
  creditsGB: number;
  totalUsageGB: number;
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
    .select()
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const [total] = await db.select({ n: count() }).from(users).where(where);
  return {
    users: rows.map((u) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      creditsGB: bytesToGbTruncated(u.creditsBytes),
      totalUsageGB: bytesToGbTruncated(u.totalUsageBytes),
      authType: u.passwordHash === null && u.googleSub ? 'google' : 'email',
      emailVerified: u.emailVerifiedAt !== null,
      createdAt: u.createdAt,
    })),
    total: Number(total?.n ?? 0),
  };
}

export interface UsageStat {
  usage_type: UsageType;
  total_gb: number;
  total_sessions: number;
  last_updated: Date | null;
}

/** Totals per usage type from what the gateways reported; always the three types. */
export async function globalUsage(db: DbOrTx): Promise<{ stats: UsageStat[] }> {
  const rows = await db
    .select({
      usageType: usageHourly.usageType,
      bytes: sql<string>`coalesce(sum(${usageHourly.bytesUp} + ${usageHourly.bytesDown}), 0)::text`,
      sessions: sql<string>`coalesce(sum(${usageHourly.sessions}), 0)::text`,
      lastUpdated: sql<Date | null>`max(${usageHourly.updatedAt})`.mapWith(usageHourly.updatedAt),
    })
    .from(usageHourly)
    .groupBy(usageHourly.usageType);
  const byType = new Map(rows.map((r) => [r.usageType, r]));
  return {
    stats: USAGE_TYPES.map((t) => {
      const r = byType.get(t);
      return {
        usage_type: t,
        total_gb: r ? bytesToGbTruncated(BigInt(r.bytes)) : 0,
        total_sessions: r ? Number(r.sessions) : 0,
        last_updated: r?.lastUpdated ?? null,
      };
    }),
  };
}
