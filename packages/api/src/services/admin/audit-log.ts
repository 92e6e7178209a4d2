/**
 * The audit log: append-only rows of who did what to what, from where and why. Writes go in the
 * caller's transaction where there is one, so an action and its record commit together.
 */
import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { auditLog, type DbOrTx } from '@proxyhub/db';

export interface Actor {
  /** `admin:<username>`, `internal` or `anonymous`. */
  actor: string;
  adminId: string | null;
  sourceAddress: string;
}

export interface AuditEntryInput {
  action: string;
  target?: string | null;
  changes?: unknown;
  reason?: string | null;
}

const SECRET_FIELD = /pass(word)?|secret|token|code$|apikey/i;

/** Inputs as recorded: secrets (passwords, tokens, one-time codes) never reach the log. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && typeof v === 'string' ? '[redacted]' : redactSecrets(v)]));
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

export async function recordAudit(db: DbOrTx, who: Actor, entry: AuditEntryInput): Promise<void> {
  await db.insert(auditLog).values({
    actor: who.actor,
    adminId: who.adminId,
    sourceAddress: who.sourceAddress,
    action: entry.action,
    target: entry.target ?? null,
    changes: entry.changes === undefined ? null : redactSecrets(entry.changes),
    reason: entry.reason ?? null,
  });
}

export interface AuditListInput {
  actor?: string | undefined;
  action?: string | undefined;
  target?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export async function listAudit(db: DbOrTx, input: AuditListInput) {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const filters: SQL[] = [];
  if (input.actor) filters.push(eq(auditLog.actor, input.actor));
  if (input.action) filters.push(eq(auditLog.action, input.action));
  if (input.target) filters.push(eq(auditLog.target, input.target));
  const where = filters.length ? and(...filters) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(auditLog).where(where),
  ]);
  return {
    entries: rows.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actor: r.actor,
      action: r.action,
      target: r.target,
      sourceAddress: r.sourceAddress,
      changes: r.changes,
      reason: r.reason,
    })),
    total: Number(total?.n ?? 0),
    page,
    pageSize,
  };
}
