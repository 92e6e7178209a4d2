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
  DEFAULT_GATEWAY_ENTRY_PORTS,
  DomainError,
  entryPortOutsideMessage,
  entryPorts,
  entryText,
  MAX_ALLOWLIST_ENTRIES,
  parseAllowlistEntry,
  parseEntryPortRange,
  parseLocationText,
  passwordlessEligible,
  TOO_MANY_ALLOWLIST_ENTRIES,
  tooWideForPasswordlessMessage,
  type AllowlistEntryInput,
  type AllowlistNetwork,
  type EntryPortRange,
  type PortProfile,
  type SetIpAllowlistInput,
} from '@proxyhub/core';
import { ipAllowlistEntries, proxyAccounts, users, type DbOrTx } from '@proxyhub/db';
import { anyOf } from '../lib/any-of';
import { isKnownLocation } from '../network/locations';

export interface IpAllowlist {
  /** An entry with port profiles is `{ entry, ports }`, one without is its text (as before ports existed). */
  entries: AllowlistEntryInput[];
  passwordless: boolean;
}

/** The entry ports when the configuration names none (GATEWAY_ENTRY_PORTS unset). */
export const DEFAULT_ENTRY_PORTS: EntryPortRange = parseEntryPortRange(DEFAULT_GATEWAY_ENTRY_PORTS)!;

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

async function allowlistEntries(db: DbOrTx, userId: string): Promise<AllowlistEntryInput[]> {
  const rows = await db
    .select({ entry: ipAllowlistEntries.entry, ports: ipAllowlistEntries.ports })
    .from(ipAllowlistEntries)
    .where(eq(ipAllowlistEntries.userId, userId))
    .orderBy(asc(ipAllowlistEntries.createdAt), asc(ipAllowlistEntries.id));
  return rows.map((r) => withPorts(r.entry, r.ports));
}

const withPorts = (entry: string, ports: PortProfile[]): AllowlistEntryInput => (ports.length ? { entry, ports } : entry);

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

/** Parsed, deduplicated (the first of a network keeps its ports), in the order given; refuses the first entry that is not an address or range. */
function networksOf(entries: readonly AllowlistEntryInput[]): Array<AllowlistNetwork & { ports: PortProfile[] }> {
  if (entries.length > MAX_ALLOWLIST_ENTRIES) throw new DomainError('BAD_REQUEST', TOO_MANY_ALLOWLIST_ENTRIES);
  const seen = new Map<string, AllowlistNetwork & { ports: PortProfile[] }>();
  for (const e of entries) {
    const problem = allowlistEntryProblem(entryText(e));
    if (problem) throw new DomainError('BAD_REQUEST', problem);
    const n = parseAllowlistEntry(entryText(e))!;
    if (!seen.has(n.cidr)) seen.set(n.cidr, { ...n, ports: entryPorts(e) });
  }
  return [...seen.values()];
}

/**
 * Port profiles name an entry port, a known location and one of the user's own proxy accounts (a
 * profile for another user's account would spend their credit from this user's address).
 */
async function checkPortProfiles(tx: DbOrTx, userId: string, ports: readonly PortProfile[], range: EntryPortRange | null): Promise<void> {
  if (!ports.length) return;
  for (const p of ports) {
    if (!range) throw new DomainError('BAD_REQUEST', 'Entry ports are off on this installation (GATEWAY_ENTRY_PORTS): ports cannot be set');
    if (p.port < range.from || p.port > range.to) throw new DomainError('BAD_REQUEST', entryPortOutsideMessage(p.port, range));
    const loc = parseLocationText(p.location);
    if (!loc || !isKnownLocation(loc)) throw new DomainError('BAD_REQUEST', `Location "${p.location}" is not known: use codes such as FR or US-CA-LOSANGELES`);
  }
  const ids = [...new Set(ports.flatMap((p) => p.proxyAccountId ?? []))];
  if (!ids.length) return;
  const own = await tx
    .select({ id: proxyAccounts.proxyUserId })
    .from(proxyAccounts)
    .where(and(eq(proxyAccounts.userId, userId), anyOf(proxyAccounts.proxyUserId, ids)));
  const mine = new Set(own.map((r) => r.id));
  const other = ids.find((id) => !mine.has(id));
  if (other) throw new DomainError('NOT_FOUND', `Proxy account ${other} is not one of your proxy accounts`);
}

/**
 * Replaces the list (and, when given, the password-less setting) in one transaction. Port profiles
 * are kept while password-less access is off and apply again when it is back on.
 */
export async function setIpAllowlist(
  tx: DbOrTx,
  userId: string,
  input: SetIpAllowlistInput,
  entryPortRange: EntryPortRange | null = DEFAULT_ENTRY_PORTS,
): Promise<SavedIpAllowlist> {
  const networks = networksOf(input.entries);
  await checkPortProfiles(
    tx,
    userId,
    networks.flatMap((n) => n.ports),
    entryPortRange,
  );
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
      ports: n.ports,
      createdAt: sql`now() + ${i}::int * interval '1 microsecond'`,
    }));
    await tx.insert(ipAllowlistEntries).values(rows);
  }
  await tx.update(users).set({ allowlistPasswordless: passwordless }).where(eq(users.id, userId));
  const notes = [...new Set(input.entries.flatMap((e) => allowlistSavedAsNote(entryText(e)) ?? []))];
  return { entries: networks.map((n) => withPorts(n.entry, n.ports)), passwordless, notes };
}

/** Whether two networks share an address (one contains the other, for CIDR ranges). */
function overlap(a: AllowlistNetwork, cidr: string): boolean {
  const b = parseAllowlistEntry(cidr);
  if (!b || a.kind !== b.kind) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  return parseAllowlistEntry(`${a.address}/${prefix}`)?.cidr === parseAllowlistEntry(`${b.address}/${prefix}`)?.cidr;
}

/**
 * The user for whom `address` is password-less, if any (claims never overlap, so at most one), with
 * the profile of `port` when asked: of the user's entries holding the address, the narrowest that
 * has one (null when none has).
 */
export async function passwordlessUserAt(db: DbOrTx, address: string, port?: number): Promise<{ userId: string; profile: PortProfile | null } | null> {
  const rows = await db
    .select({ userId: ipAllowlistEntries.userId, ports: ipAllowlistEntries.ports })
    .from(ipAllowlistEntries)
    .where(and(eq(ipAllowlistEntries.passwordless, true), sql`${ipAllowlistEntries.network} >>= ${address}::inet`))
    .orderBy(sql`masklen(${ipAllowlistEntries.network}) desc`);
  const [first] = rows;
  if (!first) return null;
  const profile = port === undefined ? null : (rows.flatMap((r) => r.ports).find((p) => p.port === port) ?? null);
  return { userId: first.userId, profile };
}
