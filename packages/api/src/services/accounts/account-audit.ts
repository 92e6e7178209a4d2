/**
 * The customer's audit log: every change made on an account through a session (the owner's or a
 * member's) or an API key, for the owner and admins to see who did what. Reads are not recorded.
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import { ACCOUNT_AUDIT_ACTIONS, ACCOUNT_AUDIT_DAYS, type AccountAuditAction, type AccountAuditEntry } from '@proxyhub/core';
import { accountAudit, apiKeys, teamInvites, teamMembers, users, webhooks, type DbOrTx } from '@proxyhub/db';

export type AuditActor = AccountAuditEntry['actor'];

type Input = Record<string, unknown>;
/** How a change is written down: its action, and what it named (from its input or answer, or read before it ran). */
interface Audited {
  action: AccountAuditAction;
  target?: (input: Input, answer: unknown) => unknown;
  /** For a change that deletes what its input names by id: its name, read before it is gone. */
  before?: (db: DbOrTx, accountId: string, id: string) => Promise<string | null>;
}

const field = (key: string) => (input: Input) => input[key];
/** A pasted line's proxy user id: the username's part before its first `_`. */
const lineAccount = (input: Input) => (typeof input.username === 'string' ? input.username.trim().split('_')[0] : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const keyName = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select({ name: apiKeys.name })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, accountId)))
  )[0]?.name ?? null;
const webhookUrl = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select({ url: webhooks.url })
      .from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.userId, accountId)))
  )[0]?.url ?? null;
const inviteEmail = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select({ email: teamInvites.email })
      .from(teamInvites)
      .where(and(eq(teamInvites.id, id), eq(teamInvites.accountId, accountId)))
  )[0]?.email ?? null;
const memberEmail = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select({ email: users.email })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.memberId))
      .where(and(eq(teamMembers.id, id), eq(teamMembers.accountId, accountId)))
  )[0]?.email ?? null;

/**
 * Every procedure that changes an account, by its path, and how its entry reads. A mutation of a
 * user procedure missing here is not recorded: apps/server/test/teams.test.ts fails on one.
 */
export const AUDITED_PROCEDURES: Record<string, Audited> = {
  'auth.rename': { action: 'account.rename', target: field('name') },
  // PATCH /api/account: what it set, e.g. "name Dana, language ru".
  'auth.updateAccount': {
    action: 'account.update',
    target: (input) =>
      [typeof input.name === 'string' && `name ${input.name}`, typeof input.locale === 'string' && `language ${input.locale}`].filter(Boolean).join(', ') ||
      null,
  },
  'auth.deleteAccount': { action: 'account.delete' },
  'auth.changePassword': { action: 'password.change' },
  'auth.rotateApiKey': { action: 'api_key.rotate_default' },
  'auth.rotateProxyPassword': { action: 'proxy_password.rotate' },
  'twoFactor.setup': { action: 'two_factor.setup' },
  'twoFactor.enable': { action: 'two_factor.enable' },
  'twoFactor.disable': { action: 'two_factor.disable' },
  'telegram.link': { action: 'telegram.link' },
  'telegram.unlink': { action: 'telegram.unlink' },
  'apiKeys.create': { action: 'api_key.create', target: field('name') },
  'apiKeys.delete': { action: 'api_key.delete', before: keyName },
  'proxyAccounts.create': { action: 'proxy_account.create', target: (_i, a) => (a as { account?: { proxyUserId?: string } }).account?.proxyUserId },
  'proxyAccounts.update': { action: 'proxy_account.update', target: field('proxyUserId') },
  'proxyAccounts.rotatePassword': { action: 'proxy_account.rotate_password', target: field('proxyUserId') },
  'proxyAccounts.test': { action: 'line.test', target: lineAccount },
  'proxyAccounts.rotateLine': { action: 'line.rotate', target: lineAccount },
  'proxyAccounts.setTargetRules': { action: 'target_rules.update', target: field('id') },
  'proxyAccounts.blockTargets': { action: 'target_rules.block', target: field('id') },
  'ipAllowlist.set': { action: 'allowlist.update' },
  'alerts.set': { action: 'alerts.update' },
  'webhooks.create': { action: 'webhook.create', target: field('url') },
  'webhooks.delete': { action: 'webhook.delete', before: webhookUrl },
  'webhooks.resend': { action: 'webhook.resend', before: webhookUrl },
  'credits.redeem': { action: 'code.redeem', target: field('code') },
  'credits.processBatch': { action: 'batch.process', target: field('batchId') },
  'credits.createCryptoPayment': { action: 'order.create', target: (i) => (typeof i.gbAmount === 'number' ? `${i.gbAmount} GB` : null) },
  'credits.cancelCryptoPayment': { action: 'order.cancel', target: field('paymentId') },
  'gifts.create': { action: 'gift_code.create', target: (_i, a) => (a as { code?: string }).code },
  'gifts.cancel': { action: 'gift_code.cancel', target: field('code') },
  'subscriptions.subscribe': { action: 'subscription.create', target: field('planId') },
  'subscriptions.cancel': { action: 'subscription.cancel', target: field('id') },
  'team.invite': { action: 'team.invite', target: (i) => (typeof i.email === 'string' ? `${i.email.trim().toLowerCase()} as ${String(i.role)}` : null) },
  'team.revokeInvite': { action: 'team.revoke_invite', before: inviteEmail },
  'team.setRole': { action: 'team.set_role', before: memberEmail, target: (i) => String(i.role) },
  'team.remove': { action: 'team.remove', before: memberEmail },
  'team.accept': { action: 'team.accept', target: (_i, a) => (a as { name?: string }).name },
};

/** What an audited change named, read before it runs (a deleted key's name); null when it names nothing to read. */
export async function auditTargetBefore(db: DbOrTx, accountId: string, path: string, input: unknown): Promise<string | null> {
  const id = (input as Input | null)?.id;
  const before = AUDITED_PROCEDURES[path]?.before;
  return before && typeof id === 'string' && UUID.test(id) ? before(db, accountId, id) : null;
}

/** The entry's target: what was read before, with what the input or answer names (a role: "dana@x.com as admin"). */
export function auditTarget(path: string, input: unknown, answer: unknown, before: string | null): string | null {
  const audited = AUDITED_PROCEDURES[path];
  const named = audited?.target?.((input ?? {}) as Input, answer);
  const text = typeof named === 'string' && named ? named.slice(0, 200) : null;
  if (before && text) return `${before} as ${text}`;
  return before ?? text ?? (typeof (input as Input | null)?.id === 'string' ? ((input as Input).id as string) : null);
}

export async function recordAccountAudit(db: DbOrTx, accountId: string, actor: AuditActor, action: AccountAuditAction, target: string | null): Promise<void> {
  await db.insert(accountAudit).values({ accountId, actorKind: actor.kind, actorId: actor.id, actorName: actor.name, action, target });
}

/** Entries written before actions had names carry the procedure's path: read as its action. */
function actionOf(stored: string): AccountAuditAction | null {
  if ((ACCOUNT_AUDIT_ACTIONS as readonly string[]).includes(stored)) return stored as AccountAuditAction;
  return AUDITED_PROCEDURES[stored]?.action ?? null;
}

/** GET /api/audit: newest first. */
export async function listAccountAudit(db: DbOrTx, accountId: string, limit: number): Promise<{ entries: AccountAuditEntry[] }> {
  const rows = await db
    .select()
    .from(accountAudit)
    .where(eq(accountAudit.accountId, accountId))
    .orderBy(desc(accountAudit.at), desc(accountAudit.id))
    .limit(limit);
  return {
    entries: rows.flatMap((r) => {
      const action = actionOf(r.action);
      return action
        ? [{ at: r.at.toISOString(), actor: { kind: r.actorKind === 'key' ? 'key' : 'member', id: r.actorId, name: r.actorName }, action, target: r.target }]
        : [];
    }),
  };
}

/** Entries older than the retention go (the hourly retention job). */
export async function pruneAccountAudit(db: DbOrTx, now = Date.now(), days = ACCOUNT_AUDIT_DAYS): Promise<number> {
  const gone = await db
    .delete(accountAudit)
    .where(and(lt(accountAudit.at, new Date(now - days * 24 * 60 * 60 * 1000))))
    .returning({ id: accountAudit.id });
  return gone.length;
}
