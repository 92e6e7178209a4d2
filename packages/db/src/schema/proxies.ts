import { sql } from 'drizzle-orm';
import { USAGE_PROTOCOLS, USAGE_TYPES, type PortProfile } from '@proxyhub/core';
import { bigint, boolean, check, cidr, date, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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

export const PROXY_ACCOUNT_KINDS = ['main', 'batch', 'sub'] as const;
export type ProxyAccountKind = (typeof PROXY_ACCOUNT_KINDS)[number];

/**
 * What the gateway authenticates: the user's main account (one per user), the accounts that came
 * in batches, and sub-accounts the user made (each with an optional cap of its own).
 */
export const proxyAccounts = pgTable(
  'proxy_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: PROXY_ACCOUNT_KINDS }).notNull().default('main'),
    /** Shown to the owner; the main account is "Main", a batch's accounts carry the batch code. */
    name: text('name').notNull().default(''),
    proxyUserId: text('proxy_user_id').notNull(),
    /** AES-256-GCM ciphertext: shown to the owner, compared by the server for the gateway. */
    proxyPasswordEnc: text('proxy_password_enc').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    batchId: uuid('batch_id').references(() => batches.id),
    usageType: text('usage_type', { enum: USAGE_TYPES }).notNull().default('normal_proxy'),
    /** A sub-account's own limit: its used_bytes never pass it (null: only the wallet limits it). */
    capBytes: bigint('cap_bytes', { mode: 'bigint' }),
    /** Everything this account has used (reported usage), counted against cap_bytes. */
    usedBytes: bytes('used_bytes'),
    /** Limits per UTC day and month (null: none), counted like cap_bytes against day_used_bytes and month_used_bytes. */
    dailyLimitBytes: bigint('daily_limit_bytes', { mode: 'bigint' }),
    monthlyLimitBytes: bigint('monthly_limit_bytes', { mode: 'bigint' }),
    /** What was used on usage_day (UTC) and in its month; a report on a later day starts them again. */
    dayUsedBytes: bytes('day_used_bytes'),
    monthUsedBytes: bytes('month_used_bytes'),
    usageDay: date('usage_day', { mode: 'string' }),
    /** From this time the account is refused (null: never). */
    expiresAt: ts('expires_at'),
    /** The expires_at the "expiring soon" notice was sent for: a new expires_at re-arms it. */
    expiryNotifiedFor: ts('expiry_notified_for'),
    /** Concurrent connections across the fleet (null: no limit). */
    maxConnections: integer('max_connections'),
    createdAt: createdAt(),
    disabledAt: ts('disabled_at'),
  },
  (t) => [
    uniqueIndex('proxy_accounts_proxy_user_id_key').on(t.proxyUserId),
    index('proxy_accounts_proxy_user_id_trgm_idx').using('gin', t.proxyUserId.op('gin_trgm_ops')),
    uniqueIndex('proxy_accounts_one_main_key')
      .on(t.userId)
      .where(sql`${t.kind} = 'main'`),
    index('proxy_accounts_user_idx').on(t.userId),
    index('proxy_accounts_batch_idx').on(t.batchId),
  ],
);

/**
 * Usage alerts: the highest share of a meter's limit already notified in its period (a meter is a
 * proxy account's cap, daily or monthly limit; a plan period's allowance plugs in as another meter
 * kind). One row per (meter, subject); the check moves it by conditional UPDATE, so each crossing
 * notifies once however many reports check at the same time.
 */
export const usageAlertMarks = pgTable(
  'usage_alert_marks',
  {
    meter: text('meter').notNull(),
    /** What the meter belongs to (a proxy account's id for cap, daily and monthly). */
    subjectId: uuid('subject_id').notNull(),
    /** The period the percent is for: 'lifetime' for a cap, the UTC day or month for a limit. */
    period: text('period').notNull(),
    notifiedPercent: integer('notified_percent').notNull().default(0),
    /** The limit the percent is of: a different limit (raised or lowered) re-arms what usage is now under. */
    limitBytes: bigint('limit_bytes', { mode: 'bigint' }).notNull(),
  },
  // Subject first: a check reads the marks of the accounts a report spent for.
  (t) => [primaryKey({ columns: [t.subjectId, t.meter] })],
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
    /** The plan bucket the granted bytes came from (null: pay-as-you-go); what is unused goes back to it. */
    planBucketId: uuid('plan_bucket_id'),
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

/**
 * "A new IP now" (POST /api/lines/rotate): how many times the owner rotated a sticky line, named by
 * its account and token, and when last. Gateways derive the line's upstream session id from it (a
 * rotation in the current period gives a new one), so every gateway agrees on the new exit.
 */
export const lineRotations = pgTable(
  'line_rotations',
  {
    proxyAccountId: uuid('proxy_account_id')
      .notNull()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    count: integer('count').notNull().default(0),
    rotatedAt: ts('rotated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.proxyAccountId, t.token] }), index('line_rotations_recent_idx').on(t.proxyAccountId, t.rotatedAt)],
);

/**
 * A proxy account's own target rules (PUT /api/proxy-accounts/:id/targets): `deny` refuses the
 * listed patterns, `allow` everything else. One row per account, absent until its owner sets them
 * (then nothing is refused). `patterns` are normalized domain patterns (core's target-rules.ts).
 */
export const proxyAccountTargetRules = pgTable(
  'proxy_account_target_rules',
  {
    proxyAccountId: uuid('proxy_account_id')
      .primaryKey()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: ['allow', 'deny'] }).notNull(),
    patterns: text('patterns').array().notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [check('proxy_account_target_rules_mode', sql`${t.mode} in ('allow', 'deny')`)],
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
    /**
     * Where the traffic went, as the proxy username asked (ISO country code, state and city names)
     * and how it came in; '' when unknown (rows from before these were recorded, password-less
     * connections without a location). '' rather than null: they are part of the key.
     */
    country: text('country').notNull().default(''),
    state: text('state').notNull().default(''),
    city: text('city').notNull().default(''),
    protocol: text('protocol', { enum: USAGE_PROTOCOLS }).notNull().default(''),
    /**
     * The upstream pool (upstreams.id) that carried the traffic; '' for the default
     * (GATEWAY_UPSTREAM_URL) or direct egress. '' rather than null: part of the key; no foreign
     * key, so a deleted upstream's history stays.
     */
    upstreamId: text('upstream_id').notNull().default(''),
    bytesUp: bytes('bytes_up'),
    bytesDown: bytes('bytes_down'),
    sessions: integer('sessions').notNull().default(0),
    updatedAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'usage_hourly_pk', columns: [t.proxyAccountId, t.hour, t.usageType, t.country, t.state, t.city, t.protocol, t.upstreamId] }),
    index('usage_hourly_type_idx').on(t.usageType, t.hour),
  ],
);

/**
 * The same usage per UTC day, kept beside the hourly rows in the same transaction: a year of daily
 * usage reads 365 rows per account and key instead of 8760.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    proxyAccountId: uuid('proxy_account_id')
      .notNull()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    day: ts('day').notNull(),
    usageType: text('usage_type', { enum: USAGE_TYPES }).notNull(),
    country: text('country').notNull().default(''),
    state: text('state').notNull().default(''),
    city: text('city').notNull().default(''),
    protocol: text('protocol', { enum: USAGE_PROTOCOLS }).notNull().default(''),
    upstreamId: text('upstream_id').notNull().default(''),
    bytesUp: bytes('bytes_up'),
    bytesDown: bytes('bytes_down'),
    sessions: integer('sessions').notNull().default(0),
    updatedAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'usage_daily_pk', columns: [t.proxyAccountId, t.day, t.usageType, t.country, t.state, t.city, t.protocol, t.upstreamId] }),
    index('usage_daily_upstream_idx').on(t.upstreamId, t.day),
  ],
);

/**
 * Source addresses a user's proxy credentials may be used from (IPv4/IPv6 address or CIDR range).
 * An empty list means anywhere. `passwordless` mirrors the user's setting per row, so the gateway's
 * lookup of a connection without credentials is one indexed query on `network`.
 */
export const ipAllowlistEntries = pgTable(
  'ip_allowlist_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** As the user wrote it (trimmed). */
    entry: text('entry').notNull(),
    network: cidr('network').notNull(),
    passwordless: boolean('passwordless').notNull().default(false),
    /** Entry port profiles: what a password-less connection from this entry to each port gets (services/accounts/ip-allowlist.ts). */
    ports: jsonb('ports').$type<PortProfile[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index('ip_allowlist_entries_user_idx').on(t.userId), index('ip_allowlist_entries_network_idx').using('gist', t.network.op('inet_ops'))],
);

/**
 * The connection log: one row per tunnel, SOCKS5 connection or forwarded HTTP request, as the
 * gateway reported it. Partitioned by UTC day of started_at (hand-written SQL in its migration;
 * partitions are made as rows arrive and whole days dropped after CONNECTION_LOG_DAYS), so the
 * primary key carries started_at. No foreign keys: a day's partition is dropped, never cascaded.
 */
export const connectionLog = pgTable(
  'connection_log',
  {
    id: uuid('id').notNull(),
    startedAt: ts('started_at').notNull(),
    endedAt: ts('ended_at').notNull(),
    userId: uuid('user_id').notNull(),
    proxyAccountId: uuid('proxy_account_id').notNull(),
    proxyUserId: text('proxy_user_id').notNull(),
    protocol: text('protocol', { enum: USAGE_PROTOCOLS }).notNull(),
    /** host:port only. */
    target: text('target').notNull(),
    country: text('country').notNull().default(''),
    state: text('state').notNull().default(''),
    city: text('city').notNull().default(''),
    /** The line's ZIP (`~z`) and ASN (`~a`); '' when it asked for none. */
    zip: text('zip').notNull().default(''),
    asn: text('asn').notNull().default(''),
    session: text('session').notNull(),
    bytesUp: bytes('bytes_up'),
    bytesDown: bytes('bytes_down'),
    billedBytes: bytes('billed_bytes'),
    outcome: text('outcome').notNull(),
    reason: text('reason').notNull().default(''),
    gatewayId: text('gateway_id').notNull(),
    /** The gateway's local address for a direct connection (what an abuse report names); '' when unknown. */
    exitIp: text('exit_ip').notNull().default(''),
    /** The pool upstream the connection went through ('' for direct egress or the default upstream): reconciliation's figure. */
    upstreamId: text('upstream_id').notNull().default(''),
    /**
     * Milliseconds from the client's request (read by the gateway) to the target, or the pool
     * upstream, accepting; null when it never got that far (a refusal) and for rows before the column.
     */
    connectMs: integer('connect_ms'),
  },
  (t) => [
    primaryKey({ name: 'connection_log_pk', columns: [t.id, t.startedAt] }),
    index('connection_log_user_idx').on(t.userId, t.startedAt, t.id),
    // The log filtered by a target prefix (LIKE 'host%'): a rare host is found without reading the user's month.
    index('connection_log_user_target_idx').on(t.userId, t.target.op('text_pattern_ops'), t.startedAt),
    // The abuse look-up by exit IP and time. Only rows with an exit IP (direct egress): rows via an
    // upstream provider have none, and indexing them cost every stored record (pnpm bench:connections).
    index('connection_log_exit_ip_idx')
      .on(t.exitIp, t.startedAt)
      .where(sql`${t.exitIp} <> ''`),
    // Reconciliation: an upstream's bytes per day. Only rows through a pool upstream, as above.
    index('connection_log_upstream_idx')
      .on(t.upstreamId, t.startedAt)
      .where(sql`${t.upstreamId} <> ''`),
  ],
);

/**
 * Open connections of accounts with a connection limit, as each gateway last reported them: what
 * the other gateways hold is what one gateway may not open (maxConnections across the fleet).
 */
export const gatewayConnections = pgTable(
  'gateway_connections',
  {
    gatewayId: text('gateway_id').notNull(),
    proxyAccountId: uuid('proxy_account_id')
      .notNull()
      .references(() => proxyAccounts.id, { onDelete: 'cascade' }),
    open: integer('open').notNull(),
    reportedAt: ts('reported_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.gatewayId, t.proxyAccountId] }), index('gateway_connections_account_idx').on(t.proxyAccountId)],
);

/**
 * Final signed daily statements, one per proxy account and UTC day with traffic, kept so the chain
 * (each names the SHA-256 of the one before) never changes. `body` is the statement's canonical
 * JSON exactly as signed and hashed; no foreign key to the account, so a statement outlives it.
 */
export const statements = pgTable(
  'statements',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    proxyAccountId: uuid('proxy_account_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('statements_account_day_uq').on(t.proxyAccountId, t.day), index('statements_user_day_idx').on(t.userId, t.day)],
);
