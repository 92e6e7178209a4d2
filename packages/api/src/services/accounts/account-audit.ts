/**
 * The customer's audit log: every change made on an account through a session (the owner's or a
 * member's) or an API key, for the owner and admins to see who did what. Reads are not recorded.
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import { ACCOUNT_AUDIT_DAYS, type AccountAuditEntry } from '@proxyhub/core';
import { accountAudit, type DbOrTx } from '@proxyhub/db';

export type AuditActor = AccountAuditEntry['actor'];

export async function recordAccountAudit(db: DbOrTx, accountId: string, actor: AuditActor, action: string, target: string | null): Promise<void> {
  await db.insert(accountAudit).values({ accountId, actorKind: actor.kind, actorId: actor.id, actorName: actor.name, action, target });
}

/** GET /api/audit: newest first. */
export async function listAccountAudit(db: DbOrTx, accountId: string, limit: number): Promise<{ entries: AccountAuditEntry[] }> {
  const rows = await db
    .select()
    .from(accountAudit)
    .where(eq(accountAudit.accountId, accountId))
    .orderBy(desc(accountAudit.at), desc(accountAudit.id))
    .limit(limit);
  return {
    entries: rows.map((r) => ({
      at: r.at.toISOString(),
      actor: { kind: r.actorKind === 'key' ? 'key' : 'member', id: r.actorId, name: r.actorName },
      action: r.action,
      target: r.target,
    })),
  };
}

/** Entries older than the retention go (the hourly retention job). */
export async function pruneAccountAudit(db: DbOrTx, now = Date.now(), days = ACCOUNT_AUDIT_DAYS): Promise<number> {
  const gone = await db
    .delete(accountAudit)
    .where(and(lt(accountAudit.at, new Date(now - days * 24 * 60 * 60 * 1000))))
    .returning({ id: accountAudit.id });
  return gone.length;
}
