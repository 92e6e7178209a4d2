import { eq } from 'drizzle-orm';
import { oneTimeTokens, proxyAccounts, sessions, users } from '@proxyhub/db';
import type { TestServer } from './server';

/** The stored user, once the work a registration does after answering has finished. */
export async function userRow(server: TestServer, email: string) {
  await server.settle();
  const rows = await server.deps.db.select().from(users).where(eq(users.email, email));
  return rows;
}

export async function proxyAccountRows(server: TestServer, userId: string) {
  return server.deps.db.select().from(proxyAccounts).where(eq(proxyAccounts.userId, userId));
}

export async function sessionRows(server: TestServer, userId: string) {
  return server.deps.db.select().from(sessions).where(eq(sessions.userId, userId));
}

export async function tokenRows(server: TestServer, userId: string) {
  return server.deps.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, userId)).orderBy(oneTimeTokens.createdAt);
}

/** No API moves time: expiry tests age the token row directly. */
export async function expireTokens(server: TestServer, userId: string) {
  await server.deps.db
    .update(oneTimeTokens)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(oneTimeTokens.userId, userId));
}
