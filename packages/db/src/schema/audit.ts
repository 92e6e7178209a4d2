import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { adminUsers } from './users';

/**
 * Who did what to what, from where and why: every admin action and every data-changing call with the
 * internal key. Append-only: no procedure updates or deletes a row, and a trigger refuses both.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    at: createdAt(),
    /** `admin:<username>`, `internal`, or `anonymous` (a failed admin login). */
    actor: text('actor').notNull(),
    adminId: uuid('admin_id').references(() => adminUsers.id),
    action: text('action').notNull(),
    /** What it was done to: `user:<id>`, `code:<code>`, `admin:<id>`...; null for none. */
    target: text('target'),
    sourceAddress: text('source_address').notNull(),
    /** What changed (the input, with secrets removed, and what the action reported). */
    changes: jsonb('changes'),
    reason: text('reason'),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at),
    index('audit_log_actor_idx').on(t.actor, t.at),
    index('audit_log_action_idx').on(t.action, t.at),
    index('audit_log_target_idx').on(t.target, t.at),
  ],
);
