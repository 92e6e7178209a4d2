/**
 * A user's IP allow-list. Protects a user's proxy traffic against leaked credentials: when the list
 * is not empty the gateway refuses the user's credentials from any other source address. With
 * password-less access on, a connection without credentials from a listed address is the user's
 * main account, so one address can be password-less for one user only (else whose traffic is it?):
 * claims are serialised by a transaction-scoped advisory lock and checked for overlap inside it.
 */
import { and, asc, eq, ne, or, sql } from 'drizzle-orm';
import {
  allowlistEntryProblem,
  allowlistSavedAsNote,
  DomainError,
  MAX_ALLOWLIST_ENTRIES,
  parseAllowlistEntry,
  passwordlessEligible,
  TOO_MANY_ALLOWLIST_ENTRIES,
  tooWideForPasswordlessMessage,
  type AllowlistNetwork,
  type SetIpAllowlistInput,
} from '@proxyhub/core';
import { ipAllowlistEntries, users, type DbOrTx } from '@proxyhub/db';
import { anyOf } from '../lib/any-of';

export interface IpAllowlist {
  entries: string[];
  passwordless: boolean;
}

/** A save's answer: the list, and a sentence for each entry stored otherwise than typed. */
export interface SavedIpAllowlist extends IpAllowlist {
  notes: string[];
}

/** Any fixed number names the lock; every password-less claim takes it, nothing else does. */
const PASSWORDLESS_CLAIM_LOCK = 0x1b_a110;

export const passwordlessTakenMessage = (entry: string) =>
  `${entry} is already password-less for another account: an address can be password-less for one account only`;

export async function getIpAllowlist(db: DbOrTx, userId: string): Promise<IpAllowlist> {
  const [user] = await db.select({ passwordless: users.allowlistPasswordless }).from(users).where(eq(users.id, userId));
  return { entries: await allowlistEntries(db, userId), passwordless: user?.passwordless ?? false };
}

async function allowlistEntries(db: DbOrTx, userId: string): Promise<string[]> {
  const rows = await db
    .select({ entry: ipAllowlistEntries.entry })
    .from(ipAllowlistEntries)
    .where(eq(ipAllowlistEntries.userId, userId))
    .orderBy(asc(ipAllowlistEntries.createdAt), asc(ipAllowlistEntries.id));
  return rows.map((r) => r.entry);
}

/**
 * The networks the gateway matches source addresses against (`address/prefix`; none: anywhere),
 * of several users in one query (users without entries are absent).
 */
export async function allowlistsOf(db: DbOrTx, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!userIds.length) return out;
  const rows = await db
    .select({ userId: ipAllowlistEntries.userId, network: ipAllowlistEntries.network })
    .from(ipAllowlistEntries)
    .where(anyOf(ipAllowlistEntries.userId, userIds));
  for (const r of rows) {
    const list = out.get(r.userId);
    if (list) list.push(r.network);
    else out.set(r.userId, [r.network]);
  }
  return out;
}

/** Parsed, deduplicated, in the order given; refuses the first entry that is not an address or range. */
function networksOf(entries: readonly string[]): AllowlistNetwork[] {
  if (entries.length > MAX_ALLOWLIST_ENTRIES) throw new DomainError('BAD_REQUEST', TOO_MANY_ALLOWLIST_ENTRIES);
  const seen = new Map<string, AllowlistNetwork>();
  for (const e of entries) {
    const problem = allowlistEntryProblem(e);
    if (problem) throw new DomainError('BAD_REQUEST', problem);
    const n = parseAllowlistEntry(e)!;
    if (!seen.has(n.cidr)) seen.set(n.cidr, n);
  }
  return [...seen.values()];
}

/** Replaces the list (and, when given, the password-less setting) in one transaction. */
export async function setIpAllowlist(tx: DbOrTx, userId: string, input: SetIpAllowlistInput): Promise<SavedIpAllowlist> {
  const networks = networksOf(input.entries);
  // The user's row, locked: concurrent saves of one user's list apply one after the other.
  const [user] = await tx.select({ passwordless: users.allowlistPasswordless }).from(users).where(eq(users.id, userId)).for('update');
  if (!user) throw new DomainError('NOT_FOUND', 'User not found');
  const passwordless = input.passwordless ?? user.passwordless;
  if (passwordless && networks.length) {
    const wide = networks.find((n) => !passwordlessEligible(n));
    if (wide) throw new DomainError('BAD_REQUEST', tooWideForPasswordlessMessage(wide.entry));
    // Held to commit: a second claimant waits here, then sees this one's rows (read committed).
    await tx.execute(sql`select pg_advisory_xact_lock(${PASSWORDLESS_CLAIM_LOCK})`);
    const overlaps = or(...networks.map((n) => sql`${ipAllowlistEntries.network} && ${n.cidr}::cidr`));
    const [taken] = await tx
      .select({ network: ipAllowlistEntries.network })
      .from(ipAllowlistEntries)
      .where(and(eq(ipAllowlistEntries.passwordless, true), ne(ipAllowlistEntries.userId, userId), overlaps))
      .limit(1);
    if (taken) {
      const mine = networks.find((n) => overlap(n, taken.network)) ?? networks[0]!;
      throw new DomainError('CONFLICT', passwordlessTakenMessage(mine.entry));
    }
  }
  await tx.delete(ipAllowlistEntries).where(eq(ipAllowlistEntries.userId, userId));
  if (networks.length) {
    // One microsecond apart: the list reads back in the order it was given.
    const rows = networks.map((n, i) => ({
      userId,
      entry: n.entry,
      network: n.cidr,
      passwordless,
      createdAt: sql`now() + ${i}::int * interval '1 microsecond'`,
    }));
    await tx.insert(ipAllowlistEntries).values(rows);
  }
  await tx.update(users).set({ allowlistPasswordless: passwordless }).where(eq(users.id, userId));
  const notes = [...new Set(input.entries.flatMap((e) => allowlistSavedAsNote(e) ?? []))];
  return { entries: networks.map((n) => n.entry), passwordless, notes };
}

/** Whether two networks share an address (one contains the other, for CIDR ranges). */
function overlap(a: AllowlistNetwork, cidr: string): boolean {
  const b = parseAllowlistEntry(cidr);
  if (!b || a.kind !== b.kind) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  return parseAllowlistEntry(`${a.address}/${prefix}`)?.cidr === parseAllowlistEntry(`${b.address}/${prefix}`)?.cidr;
}

/** The user for whom `address` is password-less, if any (claims never overlap, so at most one). */
export async function passwordlessUserAt(db: DbOrTx, address: string): Promise<string | null> {
  const [row] = await db
    .select({ userId: ipAllowlistEntries.userId })
    .from(ipAllowlistEntries)
    .where(and(eq(ipAllowlistEntries.passwordless, true), sql`${ipAllowlistEntries.network} >>= ${address}::inet`))
    .limit(1);
  return row?.userId ?? null;
}
