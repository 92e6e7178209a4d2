import { sql } from 'drizzle-orm';
import { USAGE_TYPES } from '@proxyhub/core';
import { bigint, check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytes, createdAt, ts } from './columns';
import { users } from './users';

/** Batches of proxy accounts sold by internal tools; their allowance is a wallet until associated. */
export const batches = pgTable(
  'batches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The id handed to the buyer. */
    batchCode: text('batch_code').notNull(),
    usageType: text('usage_type', { enum: USAGE_TYPES }).notNull(),
    creditsBytes: bytes('credits_bytes'),
    totalUsageBytes: bytes('total_usage_bytes'),
    createdAt: createdAt(),
    associatedUserId: uuid('associated_user_id').references(() => users.id),
    associatedAt: ts('associated_at'),
    /**
     * Set at association: what the batch brought (its remaining allowance plus what gateways held
     * leased from it). Its accounts then spend the buyer's wallet, together never past this cap.
     */
    capBytes: bigint('cap_bytes', { mode: 'bigint' }),
    /** Usage of the batch's accounts reported since association, counted against cap_bytes. */
    capUsedBytes: bytes('cap_used_bytes'),
  },
  (t) => [uniqueIndex('batches_batch_code_key').on(t.batchCode), check('batches_credits_nonnegative', sql`${t.creditsBytes} >= 0`)],
);

/** What the gateway authenticates: one per user (normal_proxy) plus those that came in batches. */
export const proxyAccounts = pgTable(
  'proxy_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    proxyUserId: text('proxy_user_id').notNull(),
    /** AES-256-GCM ciphertext: shown to the owner, compared by the server for the gateway. */
    proxyPasswordEnc: text('proxy_password_enc').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid('batch_id').references(() => batches.id),
    usageType: text('usage_type', { enum: USAGE_TYPES }).notNull().default('normal_proxy'),
    createdAt: createdAt(),
    disabledAt: ts('disabled_at'),
  },
  (t) => [
    uniqueIndex('proxy_accounts_proxy_user_id_key').on(t.proxyUserId),
    index('proxy_accounts_user_idx').on(t.userId),
    index('proxy_accounts_batch_idx').on(t.batchId),
  ],
);

/** Bytes a gateway reserved from a wallet and has not yet reported as used or returned. */
export const gatewayLeases = pgTable(
  'gateway_leases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    gatewayId: text('gateway_id').notNull(),
    proxyAccountId: uuid('proxy_account_id')
      .notNull()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    grantedBytes: bytes('granted_bytes'),
    usedBytes: bytes('used_bytes'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    settledAt: ts('settled_at'),
  },
  (t) => [index('gateway_leases_open_idx').on(t.gatewayId, t.settledAt), index('gateway_leases_account_idx').on(t.proxyAccountId)],
);

/** Each gateway report is (gateway id, sequence) and is applied once. */
export const gatewayReports = pgTable(
  'gateway_reports',
  {
    gatewayId: text('gateway_id').notNull(),
    seq: bytes('seq'),
    receivedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.gatewayId, t.seq] })],
);

/** Usage per proxy account per hour per usage type. */
export const usageHourly = pgTable(
  'usage_hourly',
  {
    proxyAccountId: uuid('proxy_account_id')
      .notNull()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    hour: ts('hour').notNull(),
    usageType: text('usage_type', { enum: USAGE_TYPES }).notNull(),
    bytesUp: bytes('bytes_up'),
    bytesDown: bytes('bytes_down'),
    sessions: integer('sessions').notNull().default(0),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.proxyAccountId, t.hour, t.usageType] }), index('usage_hourly_type_idx').on(t.usageType, t.hour)],
);
