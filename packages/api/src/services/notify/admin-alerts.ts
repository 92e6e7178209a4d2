/**
 * The admin's alerts (GET /admin/alerts): what needs an operator's eye before customers notice (a
 * provider account low or dry, a day whose provider count drifted from ours). Raising one writes
 * the row and queues a Telegram message to every owner's and finance admin's linked chat in the
 * caller's transaction, so the alert and its message exist exactly when the change that caused it
 * does. A `dedupeKey` makes an alert noticed again (the same upstream and day) one row.
 */
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AdminAlertKind, AdminRole } from '@proxyhub/core';
import { adminAlerts, type DbOrTx } from '@proxyhub/db';
import { notifyAdminChats } from './telegram';

/** Who hears of an alert on Telegram. */
export const ALERT_ROLES: readonly AdminRole[] = ['owner', 'finance'];
/** The list answers the newest this many. */
export const ADMIN_ALERTS_LIMIT = 500;

export interface RaiseAlert {
  kind: AdminAlertKind;
  upstreamId: string | null;
  message: string;
  dedupeKey?: string;
}

/** Records the alert and queues its Telegram messages; null when its dedupe key was raised before. */
export async function raiseAdminAlert(tx: DbOrTx, alert: RaiseAlert) {
  const [row] = await tx
    .insert(adminAlerts)
    .values({ kind: alert.kind, upstreamId: alert.upstreamId, message: alert.message, dedupeKey: alert.dedupeKey ?? null })
    .onConflictDoNothing()
    .returning();
  if (!row) return null;
  await notifyAdminChats(tx, ALERT_ROLES, `ProxyHub alert: ${alert.message}`);
  return view(row);
}

/** Resolves the upstream's open alerts of these kinds (its balance is ok again); how many. */
export async function resolveAdminAlerts(tx: DbOrTx, upstreamId: string, kinds: readonly AdminAlertKind[], at = new Date()): Promise<number> {
  const rows = await tx
    .update(adminAlerts)
    .set({ resolvedAt: at })
    .where(and(eq(adminAlerts.upstreamId, upstreamId), inArray(adminAlerts.kind, [...kinds]), isNull(adminAlerts.resolvedAt)))
    .returning({ id: adminAlerts.id });
  return rows.length;
}

const view = (r: typeof adminAlerts.$inferSelect) => ({
  id: r.id,
  kind: r.kind,
  upstreamId: r.upstreamId,
  message: r.message,
  createdAt: r.createdAt.toISOString(),
  resolvedAt: r.resolvedAt?.toISOString() ?? null,
});
export type AdminAlertView = ReturnType<typeof view>;

/** The newest alerts first, and how many are open (the count on the panel's tab). */
export async function listAdminAlerts(db: DbOrTx) {
  const [rows, [open]] = await Promise.all([
    db.select().from(adminAlerts).orderBy(desc(adminAlerts.createdAt), desc(adminAlerts.id)).limit(ADMIN_ALERTS_LIMIT),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(adminAlerts)
      .where(isNull(adminAlerts.resolvedAt)),
  ]);
  return { alerts: rows.map(view), openCount: open?.n ?? 0 };
}
