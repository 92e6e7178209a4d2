import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { bytes, createdAt, ts } from './columns';

export const UPSTREAM_PROTOCOLS = ['http', 'socks5'] as const;

/**
 * Residential pools bought from upstream providers: where gateways send traffic, by country and
 * weight. The password is AES-256-GCM ciphertext (the secret box of proxy passwords): gateways get
 * it in clear over the internal API, admins never see it again.
 */
export const upstreams = pgTable(
  'upstreams',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    protocol: text('protocol', { enum: UPSTREAM_PROTOCOLS }).notNull(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    /** In core's upstream-template grammar: the line's location, session and duration in the provider's spelling. */
    usernameTemplate: text('username_template').notNull().default(''),
    /** The same grammar, `{password}` for the sealed password; '' sends the password as it is. */
    passwordTemplate: text('password_template').notNull().default(''),
    passwordEnc: text('password_enc').notNull(),
    /** Upper-case ISO codes this pool serves; null serves every country. */
    countries: text('countries').array(),
    weight: integer('weight').notNull().default(1),
    costPerGbCents: integer('cost_per_gb_cents').notNull().default(0),
    /** The provider's longest documented sticky session; a longer line is sent with this. Null: no limit. */
    maxSessionMinutes: integer('max_session_minutes'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('upstreams_port_range', sql`${t.port} between 1 and 65535`),
    check('upstreams_weight_positive', sql`${t.weight} > 0`),
    check('upstreams_cost_nonnegative', sql`${t.costPerGbCents} >= 0`),
    check('upstreams_max_session_range', sql`${t.maxSessionMinutes} between 1 and 10080`),
  ],
);

/** The gateway fleet: each gateway's last heartbeat and what it reported then. */
export const gateways = pgTable('gateways', {
  /** The id its leases and reports carry. */
  id: text('id').primaryKey(),
  version: text('version').notNull(),
  startedAt: ts('started_at').notNull(),
  lastSeenAt: ts('last_seen_at').notNull(),
  openTunnels: integer('open_tunnels').notNull().default(0),
  bytesPerSecUp: bytes('bytes_per_sec_up'),
  bytesPerSecDown: bytes('bytes_per_sec_down'),
  leasedBytes: bytes('leased_bytes'),
  upstreamErrors: bigint('upstream_errors', { mode: 'number' })
    .notNull()
    .default(sql`0`),
});

/**
 * The fleet's uptime by UTC day (GET /api/status): the minutes of the day in which at least one
 * gateway's heartbeat arrived. One upsert per heartbeat, counted once per minute (`lastMinuteAt`
 * decides); `firstMinuteAt` of the earliest row is when counting began.
 */
export const uptimeDays = pgTable(
  'uptime_days',
  {
    /** YYYY-MM-DD, UTC. */
    day: date('day', { mode: 'string' }).primaryKey(),
    upMinutes: integer('up_minutes').notNull(),
    firstMinuteAt: ts('first_minute_at').notNull(),
    lastMinuteAt: ts('last_minute_at').notNull(),
  },
  (t) => [check('uptime_days_minutes_range', sql`${t.upMinutes} between 0 and 1440`)],
);

/**
 * The countries the operator sells (GET/PUT /admin/catalogue): one row, absent until the first
 * change (then the default list applies). A listed country is offered while an enabled upstream
 * serves it, or while egress is direct.
 */
export const catalogue = pgTable(
  'catalogue',
  {
    id: integer('id').primaryKey().default(1),
    /** Upper-case ISO 3166-1 alpha-2 codes. */
    countries: text('countries').array().notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [check('catalogue_single_row', sql`${t.id} = 1`)],
);

/**
 * Which targets the gateways refuse (GET/PUT /admin/target-policy): one row, absent until the
 * first change (then nothing is blocked). `rules` are normalized domain patterns.
 */
export const targetPolicy = pgTable(
  'target_policy',
  {
    id: integer('id').primaryKey().default(1),
    rules: text('rules').array().notNull(),
    blockRawIp: boolean('block_raw_ip').notNull().default(false),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [check('target_policy_single_row', sql`${t.id} = 1`)],
);
