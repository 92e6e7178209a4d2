/**
 * A proxy account's own target rules: which targets its owner lets it reach (`allow`) or not
 * (`deny`). Protects the customer's data from being spent on hosts they never meant to pay for.
 * The gateways get them with each credential check (gateway-auth.ts), so a change reaches every
 * gateway within its cache's refresh (seconds), and match them as they match the admin's policy.
 */
import { and, eq } from 'drizzle-orm';
import { DomainError, MAIN_ACCOUNT_ID, MAX_TARGET_RULES, NO_TARGET_RULES, type TargetRules } from '@proxyhub/core';
import { proxyAccounts, proxyAccountTargetRules, type DbOrTx } from '@proxyhub/db';
import { anyOf } from '../lib/any-of';
import { PROXY_ACCOUNT_NOT_FOUND } from './proxy-accounts';

/** The caller's account named `id` (`main`, or one of their proxy user ids); 404 for anyone else's. */
async function ownAccountId(db: DbOrTx, userId: string, id: string): Promise<string> {
  const which = id.toLowerCase() === MAIN_ACCOUNT_ID ? eq(proxyAccounts.kind, 'main') : eq(proxyAccounts.proxyUserId, id.toLowerCase());
  const [row] = await db
    .select({ id: proxyAccounts.id })
    .from(proxyAccounts)
    .where(and(eq(proxyAccounts.userId, userId), which))
    .limit(1);
  if (!row) throw new DomainError('NOT_FOUND', PROXY_ACCOUNT_NOT_FOUND);
  return row.id;
}

async function rulesOf(db: DbOrTx, proxyAccountId: string, lock = false): Promise<TargetRules> {
  const q = db
    .select({ mode: proxyAccountTargetRules.mode, patterns: proxyAccountTargetRules.patterns })
    .from(proxyAccountTargetRules)
    .where(eq(proxyAccountTargetRules.proxyAccountId, proxyAccountId));
  const [row] = lock ? await q.for('update') : await q;
  return row ?? NO_TARGET_RULES;
}

export async function getTargetRules(db: DbOrTx, userId: string, id: string): Promise<TargetRules> {
  return rulesOf(db, await ownAccountId(db, userId, id));
}

async function writeRules(tx: DbOrTx, proxyAccountId: string, rules: TargetRules): Promise<TargetRules> {
  await tx
    .insert(proxyAccountTargetRules)
    .values({ proxyAccountId, mode: rules.mode, patterns: rules.patterns })
    .onConflictDoUpdate({ target: proxyAccountTargetRules.proxyAccountId, set: { mode: rules.mode, patterns: rules.patterns, updatedAt: new Date() } });
  return { mode: rules.mode, patterns: rules.patterns };
}

/** Replaces an account's rules (the input is normalized by core's schema). */
export async function setTargetRules(tx: DbOrTx, userId: string, input: { id: string } & TargetRules): Promise<TargetRules> {
  return writeRules(tx, await ownAccountId(tx, userId, input.id), input);
}

/**
 * "Block for this account": the hosts join the account's deny list; an account that allows only
 * listed targets instead stops listing them (an unlisted host is refused already).
 */
export async function blockTargets(tx: DbOrTx, userId: string, input: { id: string; hosts: string[] }): Promise<TargetRules> {
  const proxyAccountId = await ownAccountId(tx, userId, input.id);
  const now = await rulesOf(tx, proxyAccountId, true);
  const patterns = now.mode === 'deny' ? [...new Set([...now.patterns, ...input.hosts])] : now.patterns.filter((p) => !input.hosts.includes(p));
  if (patterns.length > MAX_TARGET_RULES)
    throw new DomainError('BAD_REQUEST', `Patterns: at most ${MAX_TARGET_RULES} patterns (this account has ${now.patterns.length})`);
  return writeRules(tx, proxyAccountId, { mode: now.mode, patterns });
}

/** The rules of accounts that have any (for the gateways' credential check), by proxy account id. */
export async function targetRulesOf(db: DbOrTx, proxyAccountIds: readonly string[]): Promise<Map<string, TargetRules>> {
  if (!proxyAccountIds.length) return new Map();
  const rows = await db
    .select({ proxyAccountId: proxyAccountTargetRules.proxyAccountId, mode: proxyAccountTargetRules.mode, patterns: proxyAccountTargetRules.patterns })
    .from(proxyAccountTargetRules)
    .where(anyOf(proxyAccountTargetRules.proxyAccountId, proxyAccountIds));
  // A deny list of nothing refuses nothing: the gateway need not hear of it.
  return new Map(rows.filter((r) => r.mode === 'allow' || r.patterns.length > 0).map((r) => [r.proxyAccountId, { mode: r.mode, patterns: r.patterns }]));
}
