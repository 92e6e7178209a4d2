/**
 * Team members. Protects an account against people acting on it beyond their role and past their
 * leaving: a member is found by (account, member) on every request, so removing the row ends
 * their access at once; invites are random tokens stored as SHA-256, expiring and used once.
 */
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { randomToken, sha256Hex, type UserAccount } from '@proxyhub/auth';
import {
  DomainError,
  INVITE_INVALID,
  INVITE_MEMBER_EXISTS,
  INVITE_OTHER_EMAIL,
  INVITE_SELF,
  MEMBER_NOT_FOUND,
  TEAM_INVITE_TTL_MS,
  TEAM_ROLES,
  type MembershipView,
  type TeamInviteView,
  type TeamMemberView,
  type TeamRole,
} from '@proxyhub/core';
import { DEFAULT_LOCALE } from '@proxyhub/core/i18n';
import { teamInvites, teamMembers, users, type DbOrTx } from '@proxyhub/db';
import { isUniqueViolation } from '../lib/db-errors';

const asRole = (r: string): TeamRole => ((TEAM_ROLES as readonly string[]).includes(r) ? (r as TeamRole) : 'viewer');

/** GET /api/team: the members (oldest first) and the invites still pending. */
export async function listTeam(db: DbOrTx, accountId: string): Promise<{ members: TeamMemberView[]; invites: TeamInviteView[] }> {
  const [members, invites] = await Promise.all([
    db
      .select({
        id: teamMembers.id,
        userId: teamMembers.memberId,
        name: users.name,
        email: users.email,
        role: teamMembers.role,
        createdAt: teamMembers.createdAt,
      })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.memberId))
      .where(eq(teamMembers.accountId, accountId))
      .orderBy(asc(teamMembers.createdAt), asc(teamMembers.id)),
    db
      .select()
      .from(teamInvites)
      .where(and(eq(teamInvites.accountId, accountId), isNull(teamInvites.acceptedAt), gt(teamInvites.expiresAt, new Date())))
      .orderBy(asc(teamInvites.createdAt), asc(teamInvites.id)),
  ]);
  return {
    members: members.map((m) => ({ ...m, role: asRole(m.role), createdAt: m.createdAt.toISOString() })),
    invites: invites.map((i) => ({
      id: i.id,
      email: i.email,
      role: asRole(i.role),
      createdAt: i.createdAt.toISOString(),
      expiresAt: i.expiresAt.toISOString(),
    })),
  };
}

/**
 * POST /api/team/invites: a pending invite and its token (for the mailed link, never stored). A
 * new invite for the same address replaces an earlier pending one.
 */
export async function inviteMember(
  tx: DbOrTx,
  input: { accountId: string; invitedBy: string; email: string; role: TeamRole },
): Promise<{ invite: TeamInviteView; token: string; accountName: string; locale: string }> {
  const [account] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, input.accountId)).for('update');
  const [inviter] = await tx.select({ email: users.email, locale: users.locale }).from(users).where(eq(users.id, input.invitedBy));
  if (!account) throw new DomainError('NOT_FOUND', 'Account not found');
  if (account.email.toLowerCase() === input.email || inviter?.email.toLowerCase() === input.email) throw new DomainError('BAD_REQUEST', INVITE_SELF);
  const [existing] = await tx
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.memberId))
    .where(and(eq(teamMembers.accountId, input.accountId), eq(sql`lower(${users.email})`, input.email)));
  if (existing) throw new DomainError('CONFLICT', INVITE_MEMBER_EXISTS);
  await tx.delete(teamInvites).where(and(eq(teamInvites.accountId, input.accountId), eq(teamInvites.email, input.email), isNull(teamInvites.acceptedAt)));
  const token = randomToken(32);
  const [row] = await tx
    .insert(teamInvites)
    .values({
      accountId: input.accountId,
      email: input.email,
      role: input.role,
      tokenHash: sha256Hex(token),
      invitedBy: input.invitedBy,
      expiresAt: new Date(Date.now() + TEAM_INVITE_TTL_MS),
    })
    .returning();
  const invite = { id: row!.id, email: row!.email, role: input.role, createdAt: row!.createdAt.toISOString(), expiresAt: row!.expiresAt.toISOString() };
  // The mail's language: the invitee's when the address has an account, else the inviter's.
  const [invitee] = await tx
    .select({ locale: users.locale })
    .from(users)
    .where(eq(sql`lower(${users.email})`, input.email));
  return { invite, token, accountName: account.name, locale: invitee?.locale ?? inviter?.locale ?? DEFAULT_LOCALE };
}

/** DELETE /api/team/invites/:id: a pending invite withdrawn (its link stops working). */
export async function revokeInvite(tx: DbOrTx, accountId: string, id: string): Promise<{ deleted: true }> {
  const gone = await tx
    .delete(teamInvites)
    .where(and(eq(teamInvites.id, id), eq(teamInvites.accountId, accountId), isNull(teamInvites.acceptedAt)))
    .returning({ id: teamInvites.id });
  if (!gone.length) throw new DomainError('NOT_FOUND', 'Invite not found');
  return { deleted: true };
}

/**
 * POST /api/team/invites/accept: the signed-in person becomes a member, if the invite was sent to
 * their address (a forwarded link does not let someone else in). Used once: the UPDATE decides.
 */
export async function acceptInvite(tx: DbOrTx, user: Pick<UserAccount, 'id' | 'email'>, token: string): Promise<MembershipView> {
  const [invite] = await tx
    .select()
    .from(teamInvites)
    .where(eq(teamInvites.tokenHash, sha256Hex(token)));
  if (!invite || invite.acceptedAt || invite.expiresAt.getTime() <= Date.now()) throw new DomainError('BAD_REQUEST', INVITE_INVALID);
  if (invite.email !== user.email.toLowerCase()) throw new DomainError('FORBIDDEN', INVITE_OTHER_EMAIL);
  if (invite.accountId === user.id) throw new DomainError('BAD_REQUEST', INVITE_SELF);
  const claimed = await tx
    .update(teamInvites)
    .set({ acceptedAt: new Date() })
    .where(and(eq(teamInvites.id, invite.id), isNull(teamInvites.acceptedAt)))
    .returning({ id: teamInvites.id });
  if (!claimed.length) throw new DomainError('BAD_REQUEST', INVITE_INVALID);
  try {
    await tx.insert(teamMembers).values({ accountId: invite.accountId, memberId: user.id, role: invite.role });
  } catch (e) {
    if (isUniqueViolation(e)) throw new DomainError('CONFLICT', INVITE_MEMBER_EXISTS);
    throw e;
  }
  const [account] = await tx.select({ name: users.name }).from(users).where(eq(users.id, invite.accountId));
  return { accountId: invite.accountId, name: account?.name ?? '', role: asRole(invite.role) };
}

/** PATCH /api/team/members/:id */
export async function setMemberRole(tx: DbOrTx, accountId: string, id: string, role: TeamRole): Promise<{ id: string; role: TeamRole }> {
  const [row] = await tx
    .update(teamMembers)
    .set({ role })
    .where(and(eq(teamMembers.id, id), eq(teamMembers.accountId, accountId)))
    .returning({ id: teamMembers.id });
  if (!row) throw new DomainError('NOT_FOUND', MEMBER_NOT_FOUND);
  return { id: row.id, role };
}

/** DELETE /api/team/members/:id: their access to this account ends with the next request; their own account stays. */
export async function removeMember(tx: DbOrTx, accountId: string, id: string): Promise<{ deleted: true }> {
  const gone = await tx
    .delete(teamMembers)
    .where(and(eq(teamMembers.id, id), eq(teamMembers.accountId, accountId)))
    .returning({ id: teamMembers.id });
  if (!gone.length) throw new DomainError('NOT_FOUND', MEMBER_NOT_FOUND);
  return { deleted: true };
}

/** The accounts a person may switch to (the sidebar's list). */
export async function listMemberships(db: DbOrTx, memberId: string): Promise<{ accounts: MembershipView[] }> {
  const rows = await db
    .select({ accountId: teamMembers.accountId, name: users.name, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.accountId))
    .where(eq(teamMembers.memberId, memberId))
    .orderBy(asc(users.name), asc(teamMembers.accountId));
  return { accounts: rows.map((r) => ({ ...r, role: asRole(r.role) })) };
}

/** The team account a member acts on and their role there, or null when they are not a member. */
export async function findMembership(db: DbOrTx, accountId: string, memberId: string): Promise<{ account: UserAccount; role: TeamRole } | null> {
  const [row] = await db
    .select({ account: users, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.accountId))
    .where(and(eq(teamMembers.accountId, accountId), eq(teamMembers.memberId, memberId)))
    .limit(1);
  return row ? { account: row.account, role: asRole(row.role) } : null;
}
