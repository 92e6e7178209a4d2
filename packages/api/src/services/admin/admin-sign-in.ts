/**
 * Admin accounts: their own table, argon2id passwords, their own session cookie (admin_session).
 * Threats: password guessing (sign-in limits in `limits.ts`, keyed like the users' so that nobody
 * can lock the admin out; unknown usernames take as long as wrong passwords), session fixation (a
 * new session on every login, started by the procedure from what `adminLogin` returns).
 */
import { eq } from 'drizzle-orm';
import { hashPassword, verifyPassword } from '@proxyhub/auth';
import { DomainError } from '@proxyhub/core';
import { adminUsers, type DbOrTx } from '@proxyhub/db';

export const INVALID_ADMIN_LOGIN = 'Invalid credentials';
export const ADMIN_DISABLED = 'This admin account has been disabled';

/** Creates the admin or sets its password (start-up bootstrap and `pnpm admin:create`). */
export async function upsertAdmin(db: DbOrTx, input: { username: string; password: string }): Promise<{ id: string; created: boolean }> {
  const username = input.username.trim();
  if (!username) throw new DomainError('BAD_REQUEST', 'Username is required');
  if (input.password.length < 8) throw new DomainError('BAD_REQUEST', 'Admin password must be at least 8 characters');
  const passwordHash = await hashPassword(input.password);
  const [existing] = await db
    .select({ id: adminUsers.id, passwordHash: adminUsers.passwordHash })
    .from(adminUsers)
    .where(eq(adminUsers.username, username))
    .limit(1);
  if (existing) {
    // Only rewrite the hash when the password changed, so a restart does not churn the row.
    if (!(await verifyPassword(existing.passwordHash, input.password))) {
      await db.update(adminUsers).set({ passwordHash }).where(eq(adminUsers.id, existing.id));
    }
    return { id: existing.id, created: false };
  }
  const [row] = await db
    .insert(adminUsers)
    .values({ username, passwordHash })
    .onConflictDoNothing({ target: adminUsers.username })
    .returning({ id: adminUsers.id });
  if (!row) return upsertAdmin(db, input);
  return { id: row.id, created: true };
}

export async function adminExists(db: DbOrTx, username: string): Promise<boolean> {
  const [row] = await db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username.trim())).limit(1);
  return !!row;
}

/** Checks an admin's password; the caller starts an admin session for `adminId`. */
export async function adminLogin(db: DbOrTx, input: { username: string; password: string }): Promise<{ adminId: string; username: string }> {
  const [admin] = await db.select().from(adminUsers).where(eq(adminUsers.username, input.username)).limit(1);
  const ok = await verifyPassword(admin?.passwordHash, input.password);
  if (!admin || !ok) throw new DomainError('UNAUTHORIZED', INVALID_ADMIN_LOGIN);
  if (admin.disabledAt) throw new DomainError('FORBIDDEN', ADMIN_DISABLED);
  return { adminId: admin.id, username: admin.username };
}
