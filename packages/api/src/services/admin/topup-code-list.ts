/**
 * Top-up codes for the admin: every code with its state (unused, redeemed, expired, revoked) and
 * who redeemed it when, searched by code or redeemer email; revoking an unused code.
 */
import { and, count, desc, eq, gt, ilike, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { bytesToGb, DomainError } from '@proxyhub/core';
import { topupCodes, users, type DbOrTx } from '@proxyhub/db';
import { containsPattern } from '../lib/like';

export const CODE_STATUSES = ['unused', 'redeemed', 'expired', 'revoked'] as const;
export type CodeStatus = (typeof CODE_STATUSES)[number];

const STATUS_WHERE: Record<CodeStatus, () => SQL> = {
  unused: () => and(isNull(topupCodes.redeemedAt), isNull(topupCodes.revokedAt), or(isNull(topupCodes.expiresAt), gt(topupCodes.expiresAt, sql`now()`)))!,
  redeemed: () => isNotNull(topupCodes.redeemedAt),
  expired: () => and(isNull(topupCodes.redeemedAt), isNull(topupCodes.revokedAt), lte(topupCodes.expiresAt, sql`now()`))!,
  revoked: () => isNotNull(topupCodes.revokedAt),
};

function statusOf(c: { redeemedAt: Date | null; revokedAt: Date | null; expiresAt: Date | null }, now: number): CodeStatus {
  if (c.redeemedAt) return 'redeemed';
  if (c.revokedAt) return 'revoked';
  if (c.expiresAt && c.expiresAt.getTime() <= now) return 'expired';
  return 'unused';
}

export async function listCodes(
  db: DbOrTx,
  input: { status?: CodeStatus | undefined; q?: string | undefined; page?: number | undefined; pageSize?: number | undefined },
) {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const filters: SQL[] = [];
  if (input.status) filters.push(STATUS_WHERE[input.status]());
  const q = input.q?.trim();
  if (q) filters.push(or(ilike(topupCodes.code, containsPattern(q)), ilike(users.email, containsPattern(q)))!);
  const where = filters.length ? and(...filters) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select({ c: topupCodes, redeemerEmail: users.email })
      .from(topupCodes)
      .leftJoin(users, eq(users.id, topupCodes.redeemedBy))
      .where(where)
      .orderBy(desc(topupCodes.createdAt), desc(topupCodes.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(topupCodes).leftJoin(users, eq(users.id, topupCodes.redeemedBy)).where(where),
  ]);
  const now = Date.now();
  return {
    codes: rows.map(({ c, redeemerEmail }) => ({
      code: c.code,
      creditsGB: bytesToGb(c.creditsBytes),
      creditsBytes: c.creditsBytes.toString(),
      status: statusOf(c, now),
      createdAt: c.createdAt.toISOString(),
      createdBy: c.createdBy,
      expiresAt: c.expiresAt?.toISOString() ?? null,
      redeemedAt: c.redeemedAt?.toISOString() ?? null,
      redeemedBy: c.redeemedBy ? { id: c.redeemedBy, email: redeemerEmail } : null,
      revokedAt: c.revokedAt?.toISOString() ?? null,
    })),
    total: Number(total?.n ?? 0),
    page,
    pageSize,
  };
}

export const CODE_NOT_FOUND = 'Code not found';
export const CODE_NOT_REVOCABLE: Record<Exclude<CodeStatus, 'unused'>, string> = {
  redeemed: 'This code has already been redeemed and cannot be revoked',
  expired: 'This code has expired; there is nothing to revoke',
  revoked: 'This code is already revoked',
};

/** Withdraws an unused code (conditional UPDATE: a redeem at the same moment wins or loses whole). */
export async function revokeCode(tx: DbOrTx, codeInput: string): Promise<{ code: string; revokedAt: string }> {
  const code = codeInput.trim().toUpperCase();
  const [row] = await tx
    .update(topupCodes)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(topupCodes.code, code), STATUS_WHERE.unused()))
    .returning({ revokedAt: topupCodes.revokedAt });
  if (row?.revokedAt) return { code, revokedAt: row.revokedAt.toISOString() };
  const [existing] = await tx.select().from(topupCodes).where(eq(topupCodes.code, code)).limit(1);
  if (!existing) throw new DomainError('NOT_FOUND', CODE_NOT_FOUND);
  const status = statusOf(existing, Date.now());
  throw new DomainError('CONFLICT', status === 'unused' ? CODE_NOT_REVOCABLE.revoked : CODE_NOT_REVOCABLE[status]);
}
