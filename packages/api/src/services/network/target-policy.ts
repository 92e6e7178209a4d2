/**
 * The target policy (which sites the gateways refuse) and the users it does not apply to. The
 * gateways poll it (changes reach them within 10 s) and match targets themselves (core's
 * TargetMatcher).
 */
import { eq } from 'drizzle-orm';
import type { TargetPolicy } from '@proxyhub/core';
import { targetPolicy, type DbOrTx } from '@proxyhub/db';

export async function getTargetPolicy(db: DbOrTx): Promise<TargetPolicy> {
  const [row] = await db.select().from(targetPolicy).where(eq(targetPolicy.id, 1));
  return row ? { rules: row.rules, blockRawIp: row.blockRawIp } : { rules: [], blockRawIp: false };
}

export async function setTargetPolicy(tx: DbOrTx, input: TargetPolicy): Promise<TargetPolicy> {
  await tx
    .insert(targetPolicy)
    .values({ id: 1, rules: input.rules, blockRawIp: input.blockRawIp })
    .onConflictDoUpdate({ target: targetPolicy.id, set: { rules: input.rules, blockRawIp: input.blockRawIp, updatedAt: new Date() } });
  return input;
}
