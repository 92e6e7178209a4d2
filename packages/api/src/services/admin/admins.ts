/**
 * Several admins: listing, adding (argon2id like the bootstrap admin) with a role, changing a role
 * and disabling one. Disabling ends its sessions; the last active admin, and the last active owner,
 * cannot be disabled or (the owner) demoted, decided under a lock on the active admins so two
 * owners demoting each other at once cannot both succeed.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import { hashPassword } from '@proxyhub/auth';
import { DomainError, type AdminRole } from '@proxyhub/core';
import { adminUsers, type DbOrTx } from '@proxyhub/db';

export const ADMIN_NOT_FOUND = 'Admin not found';
export const ADMIN_EXISTS = 'An admin with this username already exists';
export const LAST_ADMIN = 'The last active admin cannot be disabled';
export const ADMIN_ALREADY_DISABLED = 'This admin is already disabled';
export const LAST_OWNER = 'The last owner cannot be removed or demoted';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listAdmins(db: DbOrTx) {
  const rows = await db.select().from(adminUsers).orderBy(asc(adminUsers.createdAt), asc(adminUsers.username));
  return {
    admins: rows.map((a) => ({
      id: a.id,
      username: a.username,
      role: a.role,
      createdAt: a.createdAt.toISOString(),
      disabledAt: a.disabledAt?.toISOString() ?? null,
      twoFactor: a.totpEnabledAt !== null,
    })),
  };
}

export async function createAdmin(db: DbOrTx, input: { username: string; password: string; role: AdminRole }) {
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(adminUsers)
    .values({ username: input.username, passwordHash, role: input.role })
    .onConflictDoNothing({ target: adminUsers.username })
    .returning({ id: adminUsers.id, username: adminUsers.username, role: adminUsers.role });
  if (!row) throw new DomainError('CONFLICT', ADMIN_EXISTS);
  return row;
}

/** Disables an admin (in the caller's transaction); the caller ends its sessions after commit. */
export async function disableAdmin(tx: DbOrTx, id: string): Promise<{ id: string; username: string }> {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', ADMIN_NOT_FOUND);
  const { active, target } = await lockedTarget(tx, id);
  if (target.disabledAt) throw new DomainError('CONFLICT', ADMIN_ALREADY_DISABLED);
  if (active.length <= 1) throw new DomainError('CONFLICT', LAST_ADMIN);
  if (isLastOwner(active, target)) throw new DomainError('CONFLICT', LAST_OWNER);
  await tx
    .update(adminUsers)
    .set({ disabledAt: new Date() })
    .where(and(eq(adminUsers.id, id), isNull(adminUsers.disabledAt)));
  return { id: target.id, username: target.username };
}

/** Changes an admin's role; the last active owner keeps its own. Takes effect on its next request. */
export async function updateAdminRole(tx: DbOrTx, input: { id: string; role: AdminRole }) {
  if (!UUID_RE.test(input.id)) throw new DomainError('NOT_FOUND', ADMIN_NOT_FOUND);
  const { active, target } = await lockedTarget(tx, input.id);
  if (input.role !== 'owner' && isLastOwner(active, target)) throw new DomainError('CONFLICT', LAST_OWNER);
  await tx.update(adminUsers).set({ role: input.role }).where(eq(adminUsers.id, input.id));
  return { id: target.id, username: target.username, role: input.role, previousRole: target.role };
}

/** The active admins, locked (so the last-owner rule holds under concurrent changes), and the target. */
async function lockedTarget(tx: DbOrTx, id: string) {
  const active = await tx.select({ id: adminUsers.id, role: adminUsers.role }).from(adminUsers).where(isNull(adminUsers.disabledAt)).for('update');
  const [target] = await tx.select().from(adminUsers).where(eq(adminUsers.id, id));
  if (!target) throw new DomainError('NOT_FOUND', ADMIN_NOT_FOUND);
  return { active, target };
}

function isLastOwner(active: { id: string; role: AdminRole }[], target: { id: string; role: AdminRole; disabledAt: Date | null }) {
  return target.role === 'owner' && !target.disabledAt && active.filter((a) => a.role === 'owner').length <= 1;
}
