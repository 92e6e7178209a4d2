/**
 * "A new IP now": the owner of a sticky line moves its rotation counter, and every gateway, which
 * gets the counters of an account's recent rotations with its login answer (gateway-auth.ts),
 * derives a new upstream session id for the line and closes the line's open connections. The
 * counter lives here, in the database every server shares, so the whole fleet agrees on it.
 */
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import {
  DomainError,
  isRotating,
  MAX_DURATION_MINUTES,
  parseProxyUsername,
  ROTATING_LINE_MESSAGE,
  type LineRotation,
  type RotateLineAnswer,
} from '@proxyhub/core';
import { lineRotations, proxyAccounts, type DbOrTx } from '@proxyhub/db';
import { anyOf } from '../lib/any-of';

/**
 * A rotation matters to a gateway only while the period it happened in lasts, and no period is
 * longer than the longest duration: older ones are neither sent nor kept.
 */
const ROTATION_KEPT_MS = MAX_DURATION_MINUTES * 60_000;

/** The refusal of a line whose user id is not the caller's (their proxy user id or one of their proxy accounts). */
export function notYourLineMessage(username: string): string {
  const parsed = parseProxyUsername(username);
  return `Not one of your proxy lines: ${parsed.ok ? parsed.value.proxyUserId : username} is not your proxy user ID or one of your proxy accounts`;
}

/** The proxy account of a line's user id when it is one of the user's (main, batch or sub-account); null otherwise, whether it exists or not. */
export async function ownLineAccount(db: DbOrTx, userId: string, username: string): Promise<{ proxyAccountId: string; passwordEnc: string } | null> {
  const parsed = parseProxyUsername(username);
  if (!parsed.ok) return null;
  const [account] = await db
    .select({ proxyAccountId: proxyAccounts.id, userId: proxyAccounts.userId, passwordEnc: proxyAccounts.proxyPasswordEnc })
    .from(proxyAccounts)
    .where(eq(proxyAccounts.proxyUserId, parsed.value.proxyUserId))
    .limit(1);
  return account && account.userId === userId ? account : null;
}

/** Moves the line's rotation counter (one statement: concurrent rotations each count). */
export async function rotateLine(db: DbOrTx, userId: string, username: string): Promise<RotateLineAnswer> {
  const parsed = parseProxyUsername(username);
  if (!parsed.ok) throw new DomainError('BAD_REQUEST', `username: ${parsed.reason}`);
  if (isRotating(parsed.value)) throw new DomainError('BAD_REQUEST', ROTATING_LINE_MESSAGE);
  const account = await ownLineAccount(db, userId, username);
  if (!account) throw new DomainError('NOT_FOUND', notYourLineMessage(username));
  const now = new Date();
  const [row] = await db
    .insert(lineRotations)
    .values({ proxyAccountId: account.proxyAccountId, token: parsed.value.token, count: 1, rotatedAt: now })
    .onConflictDoUpdate({
      target: [lineRotations.proxyAccountId, lineRotations.token],
      set: { count: sql`${lineRotations.count} + 1`, rotatedAt: now },
    })
    .returning({ count: lineRotations.count, rotatedAt: lineRotations.rotatedAt });
  // The account's rotations no gateway needs any more.
  await db
    .delete(lineRotations)
    .where(and(eq(lineRotations.proxyAccountId, account.proxyAccountId), lt(lineRotations.rotatedAt, new Date(now.getTime() - ROTATION_KEPT_MS))));
  return { username, rotation: row!.count, rotatedAt: row!.rotatedAt.toISOString() };
}

/** The accounts' rotations a gateway still needs, by proxy account id (one query whatever their number). */
export async function recentRotations(db: DbOrTx, proxyAccountIds: readonly string[], now = Date.now()): Promise<Map<string, LineRotation[]>> {
  const out = new Map<string, LineRotation[]>();
  if (!proxyAccountIds.length) return out;
  const rows = await db
    .select({ proxyAccountId: lineRotations.proxyAccountId, token: lineRotations.token, count: lineRotations.count, at: lineRotations.rotatedAt })
    .from(lineRotations)
    .where(and(anyOf(lineRotations.proxyAccountId, proxyAccountIds), gt(lineRotations.rotatedAt, new Date(now - ROTATION_KEPT_MS))))
    // In one order: the gateway compares an answer with the last one it had.
    .orderBy(lineRotations.proxyAccountId, lineRotations.token);
  for (const r of rows) {
    let list = out.get(r.proxyAccountId);
    if (!list) out.set(r.proxyAccountId, (list = []));
    list.push({ token: r.token, count: r.count, at: r.at.getTime() });
  }
  return out;
}
