/**
 * The target policy (which sites the gateways refuse) and the users it does not apply to. The
 * gateways poll it (changes reach them within 10 s) and match targets themselves (core's
 * TargetMatcher).
 */
import { eq } from 'drizzle-orm';
import { DomainError, type AdminUserPatchInput, type TargetPolicy } from '@proxyhub/core';
import { targetPolicy, users, type DbOrTx } from '@proxyhub/db';

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

/** Exempts one user from the policy (or not): their connections' next login says so (seconds). */
export async function setTargetPolicyExempt(tx: DbOrTx, input: AdminUserPatchInput): Promise<{ id: string; targetPolicyExempt: boolean }> {
  const [row] = await tx
    .update(users)
    .set({ targetPolicyExempt: input.targetPolicyExempt })
    .where(eq(users.id, input.id))
    .returning({ id: users.id, targetPolicyExempt: users.targetPolicyExempt });
  if (!row) throw new DomainError('NOT_FOUND', 'User not found');
  return row;
}
