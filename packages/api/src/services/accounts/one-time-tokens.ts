import { and, eq, isNull } from 'drizzle-orm';
import { randomToken, sha256Hex } from '@proxyhub/auth';
import { oneTimeTokens, type DbOrTx, type TokenPurpose } from '@proxyhub/db';

/**
 * Issues a 256-bit token; only its SHA-256 is stored. With `replaceEarlier`, earlier unused tokens
 * of the purpose die (a reset link must be the latest); verification links all stay good until
 * one is used or they expire, so a second sign-up's mail does not void the first one's.
 */
export async function issueToken(tx: DbOrTx, input: { userId: string; purpose: TokenPurpose; ttlMs: number; replaceEarlier: boolean }): Promise<string> {
  const token = randomToken(32);
  if (input.replaceEarlier)
    await tx
      .update(oneTimeTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(oneTimeTokens.userId, input.userId), eq(oneTimeTokens.purpose, input.purpose), isNull(oneTimeTokens.usedAt)));
  await tx.insert(oneTimeTokens).values({
    tokenHash: sha256Hex(token),
    userId: input.userId,
    purpose: input.purpose,
    expiresAt: new Date(Date.now() + input.ttlMs),
  });
  return token;
}

export type ConsumeResult = { status: 'ok'; userId: string } | { status: 'used'; userId: string } | { status: 'expired' } | { status: 'unknown' };

/** Whether the token would be accepted now, without spending it. */
export async function tokenUsable(db: DbOrTx, token: string, purpose: TokenPurpose): Promise<boolean> {
  const [row] = await db
    .select({ usedAt: oneTimeTokens.usedAt, expiresAt: oneTimeTokens.expiresAt })
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.tokenHash, sha256Hex(token)), eq(oneTimeTokens.purpose, purpose)))
    .limit(1);
  return row !== undefined && row.usedAt === null && row.expiresAt.getTime() > Date.now();
}

/** Marks the token used exactly once: the conditional UPDATE decides under concurrency. */
export async function consumeToken(tx: DbOrTx, token: string, purpose: TokenPurpose): Promise<ConsumeResult> {
  const hash = sha256Hex(token);
  const [row] = await tx
    .select()
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.tokenHash, hash), eq(oneTimeTokens.purpose, purpose)))
    .limit(1);
  if (!row) return { status: 'unknown' };
  if (row.usedAt) return { status: 'used', userId: row.userId };
  if (row.expiresAt.getTime() <= Date.now()) return { status: 'expired' };
  const claimed = await tx
    .update(oneTimeTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(oneTimeTokens.id, row.id), isNull(oneTimeTokens.usedAt)))
    .returning({ id: oneTimeTokens.id });
  return claimed.length ? { status: 'ok', userId: row.userId } : { status: 'used', userId: row.userId };
}
