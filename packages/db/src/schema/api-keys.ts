import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, ts } from './columns';
import { users } from './users';

/**
 * An account's API keys. A key is found by HMAC-SHA256(APP_SECRET, key), never stored in clear.
 * The "Default" key is today's single key: its hash is also `users.api_key_hash` (whose ciphertext
 * lets Settings show it again) and `auth.rotateApiKey` replaces both in one transaction.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    keyHash: text('key_hash').notNull(),
    /** The key's first 8 characters; empty for a Default key copied from before keys had one (shown from its ciphertext). */
    prefix: text('prefix').notNull().default(''),
    isDefault: boolean('is_default').notNull().default(false),
    expiresAt: ts('expires_at'),
    /** `address/prefix` networks the key may be used from; empty: any address. */
    allowedCidrs: text('allowed_cidrs')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_user_idx').on(t.userId),
    uniqueIndex('api_keys_one_default_key')
      .on(t.userId)
      .where(sql`${t.isDefault}`),
  ],
);
