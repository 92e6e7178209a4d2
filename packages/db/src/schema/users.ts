import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { ADMIN_ROLES } from '@proxyhub/core';
import { bytes, createdAt, ts } from './columns';

export const BALANCE_ALERT_STATES = ['armed', 'low', 'out'] as const;

/** TOTP second factor: the secret (AES-256-GCM) is set at setup and in force once enabled. */
const twoFactorColumns = () => ({
  totpSecretEnc: text('totp_secret_enc'),
  totpEnabledAt: ts('totp_enabled_at'),
  /** The last 30 s time step a code was accepted for: a code is accepted once. */
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
});

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** argon2id; null for accounts that only sign in with Google. */
    passwordHash: text('password_hash'),
    googleSub: text('google_sub'),
    emailVerifiedAt: ts('email_verified_at'),
    creditsBytes: bytes('credits_bytes'),
    totalUsageBytes: bytes('total_usage_bytes'),
    /** HMAC-SHA256(APP_SECRET, apiKey) for lookup; AES-256-GCM ciphertext to show it again. */
    apiKeyHash: text('api_key_hash').notNull(),
    apiKeyEnc: text('api_key_enc').notNull(),
    createdAt: createdAt(),
    disabledAt: ts('disabled_at'),
    /** The operator's own rate for this user (cents per GB); null: the price list's. */
    pricePerGbCents: integer('price_per_gb_cents'),
    /** The gateways do not apply the target policy to this user's accounts (PATCH /admin/users/:id). */
    targetPolicyExempt: boolean('target_policy_exempt').notNull().default(false),
    /**
     * The user deleted the account: the row stays, anonymised, so the ledger still adds up
     * (email a placeholder, name, credentials and sessions gone, disabled_at set as well).
     */
    deletedAt: ts('deleted_at'),
    /** Sign-ins so far (sessions started): more than one makes a returning user ("Welcome back"). */
    signInCount: integer('sign_in_count').notNull().default(0),
    /** The user's IP allow-list also admits connections without credentials from listed addresses. */
    allowlistPasswordless: boolean('allowlist_passwordless').notNull().default(false),
    /** Low-balance alert threshold (null: no alerts). */
    lowBalanceBytes: bigint('low_balance_bytes', { mode: 'bigint' }),
    /** Which balance mail was sent last, so each crossing mails once: armed, low or out. */
    balanceAlertState: text('balance_alert_state', { enum: BALANCE_ALERT_STATES }).notNull().default('armed'),
    /** The shares of an allowance (cap, daily or monthly limit) whose crossing alerts: 1-99, ascending. */
    usageAlertPercents: integer('usage_alert_percents')
      .array()
      .notNull()
      .default(sql`'{80,90}'::integer[]`),
    ...twoFactorColumns(),
    /** The code of this user's referral link (/login?ref=CODE): 16 upper-case hex digits (64 random bits: no collision in practice), made by the database for every row. */
    referralCode: text('referral_code')
      .notNull()
      .default(sql`upper(substr(md5(gen_random_uuid()::text), 1, 16))`),
    /** Who referred this user (set once, at registration). */
    referredBy: uuid('referred_by').references((): AnyPgColumn => users.id),
    /** Why this referral earns its referrer nothing, decided at registration (null: it may earn). */
    referralIneligibleReason: text('referral_ineligible_reason'),
    /** The language of the user's mails and bot replies (one of core's LOCALES): chosen in the app, else the browser's at registration. */
    locale: text('locale').notNull().default('en'),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    uniqueIndex('users_referral_code_key').on(t.referralCode),
    index('users_referred_by_idx').on(t.referredBy),
    uniqueIndex('users_google_sub_key').on(t.googleSub),
    uniqueIndex('users_api_key_hash_key').on(t.apiKeyHash),
    // The admin's user search matches substrings (ILIKE '%q%'): trigram indexes keep it fast at scale.
    index('users_email_trgm_idx').using('gin', t.email.op('gin_trgm_ops')),
    index('users_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')),
    index('users_created_at_idx').on(t.createdAt.desc(), t.id.desc()),
    check('users_credits_nonnegative', sql`${t.creditsBytes} >= 0`),
  ],
);

/**
 * The networks (IPv4 /24, IPv6 /64) a user registered or signed in from, with when: the referral
 * rule asks whether a new account comes from its referrer's network.
 */
export const userNetworks = pgTable(
  'user_networks',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    network: text('network').notNull(),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.network] }), index('user_networks_network_idx').on(t.network, t.lastSeenAt)],
);

/** Lucia sessions; `id` is SHA-256 of the cookie value, never the value itself. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('sessions_user_id_idx').on(t.userId)],
);

export const TOKEN_PURPOSES = ['email_verification', 'password_reset'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

/** One-time tokens (email verification, password reset): SHA-256 only, expiring, single use. */
export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: TOKEN_PURPOSES }).notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('one_time_tokens_hash_key').on(t.tokenHash), index('one_time_tokens_user_idx').on(t.userId, t.purpose)],
);

export const adminUsers = pgTable(
  'admin_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** What this admin may do (core's ADMIN_ROLES); admins from before roles are owners, and at least one active owner stays. */
    role: text('role', { enum: ADMIN_ROLES }).notNull().default('owner'),
    createdAt: createdAt(),
    /** A disabled admin cannot sign in and its sessions are gone; at least one admin stays active. */
    disabledAt: ts('disabled_at'),
    ...twoFactorColumns(),
  },
  (t) => [uniqueIndex('admin_users_username_key').on(t.username)],
);

/** Single-use recovery codes of a user or an admin (SHA-256 of the code). */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    adminId: uuid('admin_id').references(() => adminUsers.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId), index('recovery_codes_admin_idx').on(t.adminId)],
);

/**
 * A sign-in waiting for its second factor: the password was right, no session yet. `id` is SHA-256
 * of the short-lived cookie's value; `attempts` bounds the codes tried on it.
 */
export const pendingLogins = pgTable(
  'pending_logins',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    adminId: uuid('admin_id').references(() => adminUsers.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('pending_logins_expires_idx').on(t.expiresAt)],
);

export const adminSessions = pgTable(
  'admin_sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('admin_id')
      .notNull()
      .references(() => adminUsers.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('admin_sessions_admin_id_idx').on(t.userId)],
);
