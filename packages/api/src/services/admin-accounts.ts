/**
 * Several admins: listing, adding (argon2id like the bootstrap admin) and disabling one. Disabling
 * ends its sessions; the last active admin cannot be disabled, decided under a lock on the active
 * admins so two admins disabling each other at once cannot both succeed.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import { hashPassword } from '@proxyhub/auth';
import { DomainError } from '@proxyhub/core';
import { adminUsers, type DbOrTx } from '@proxyhub/db';

export const ADMIN_NOT_FOUND = 'Admin not found';
export const ADMIN_EXISTS = 'An admin with this username already exists';
export const LAST_ADMIN = 'The last active admin cannot be disabled';
export const ADMIN_ALREADY_DISABLED = 'This admin is already disabled';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listAdmins(db: DbOrTx) {
  const rows = await db.select().from(adminUsers).orderBy(asc(adminUsers.createdAt), asc(adminUsers.username));
  return {
    admins: rows.map((a) => ({
      id: a.id,
      username: a.username,
      createdAt: a.createdAt.toISOString(),
      disabledAt: a.disabledAt?.toISOString() ?? null,
      twoFactor: a.totpEnabledAt !== null,
    })),
  };
}

export async function createAdmin(db: DbOrTx, input: { username: string; password: string }) {
  const passwordHash = await hashPassword(input.password);
  const [row] = await db
    .insert(adminUsers)
    .values({ username: input.username, passwordHash })
    .onConflictDoNothing({ target: adminUsers.username })
    .returning({ id: adminUsers.id, username: adminUsers.username });
  if (!row) throw new DomainError('CONFLICT', ADMIN_EXISTS);
  return row;
}

/** Disables an admin (in the caller's transaction); the caller ends its sessions after commit. */
export async function disableAdmin(tx: DbOrTx, id: string): Promise<{ id: string; username: string }> {
  if (!UUID_RE.test(id)) throw new DomainError('NOT_FOUND', ADMIN_NOT_FOUND);
  const active = await tx.select({ id: adminUsers.id }).from(adminUsers).where(isNull(adminUsers.disabledAt)).for('update');
  const [target] = await tx.select().from(adminUsers).where(eq(adminUsers.id, id));
  if (!target) throw new DomainError('NOT_FOUND', ADMIN_NOT_FOUND);
  if (target.disabledAt) throw new DomainError('CONFLICT', ADMIN_ALREADY_DISABLED);
  if (active.length <= 1) throw new DomainError('CONFLICT', LAST_ADMIN);
  await tx
    .update(adminUsers)
    .set({ disabledAt: new Date() })
    .where(and(eq(adminUsers.id, id), isNull(adminUsers.disabledAt)));
  return { id: target.id, username: target.username };
}
