import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { users } from './users';

/**
 * Who may act on an account besides its owner, and in what role (`admin`, `developer`, `finance`,
 * `viewer`). A member keeps their own account; removing the row ends their access at once.
 */
export const teamMembers = pgTable(
  'team_members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('team_members_account_member_key').on(t.accountId, t.memberId), index('team_members_member_idx').on(t.memberId)],
);

/** A mailed invite: the token's SHA-256 only, expiring, used once. */
export const teamInvites = pgTable(
  'team_invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
  },
  (t) => [uniqueIndex('team_invites_token_hash_key').on(t.tokenHash), index('team_invites_account_idx').on(t.accountId)],
);

/** Who changed what on an account (a member's session or a key), for its owner and admins; kept 180 days. */
export const accountAudit = pgTable(
  'account_audit',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    at: createdAt(),
    actorKind: text('actor_kind').notNull(),
    /** The member's user id or the key's id (kept when either is gone: the name says who it was). */
    actorId: uuid('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    action: text('action').notNull(),
    target: text('target'),
  },
  (t) => [index('account_audit_account_at_idx').on(t.accountId, t.at), index('account_audit_at_idx').on(t.at)],
);
