import { z } from 'zod';
import { LOCATION_CODE_RE, PROXY_USER_ID_RE } from '../proxy-username';
import { gatewayConnectionRecord, gatewayConnectionTuple, gatewayLogRow, gatewayLogSession } from './connections';

/** Inputs of the gateway's internal procedures (gateway.*), called with the internal key only. */

const gatewayId = z.string().min(1).max(128);
const byteCount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const code = z.string().regex(LOCATION_CODE_RE);

export const gatewayLocation = z.object({ country: code, state: code.optional(), city: code.optional() });

export const gatewayReserveLeaseInput = z.object({
  gatewayId,
  proxyAccountId: z.uuid(),
  /** Requested size; the grant may be smaller (what is left) or zero (empty balance). */
  bytes: byteCount.min(1),
});

export const gatewayAuthorizeInput = z.object({
  /** Lowercase alphanumeric, as the username carries it. */
  proxyUserId: z.string().regex(PROXY_USER_ID_RE),
  password: z.string().min(1).max(256),
  /** Checked against the known locations when given. */
  location: gatewayLocation.optional(),
  /**
   * A login's first lease, reserved with the answer when the credentials and the location are good:
   * a new account's first connection waits for one server call, not two.
   */
  lease: gatewayReserveLeaseInput.pick({ gatewayId: true, bytes: true }).optional(),
});

/** A connection without credentials: its source address (IPv4-mapped IPv6 already made IPv4). */
/** `port`: the entry port the connection came to (its profile decides account, location and session); absent: the main port. */
export const gatewayAuthorizeAddressInput = z.object({ address: z.union([z.ipv4(), z.ipv6()]), port: z.number().int().min(1).max(65535).optional() });

/** At most this many items in one batched gateway call (a cold start's logins and first leases). */
export const MAX_GATEWAY_BATCH = 1000;

/** Many credential checks in one call: answered in the order asked. */
export const gatewayAuthorizeManyInput = z.object({ items: z.array(gatewayAuthorizeInput).min(1).max(MAX_GATEWAY_BATCH) });

/** Many lease requests of one gateway in one call: granted in the order asked, in one transaction. */
export const gatewayReserveLeasesInput = z.object({
  gatewayId,
  items: z
    .array(gatewayReserveLeaseInput.omit({ gatewayId: true }))
    .min(1)
    .max(MAX_GATEWAY_BATCH),
});

const sessionCount = z.number().int().min(0).max(1_000_000_000);

/**
 * Part of a lease's usage by where it went (the username's location) and how it came in. Analytics
 * only: the item's totals are what is billed; parts that do not add up to them are recorded as unknown.
 */
export const gatewayUsagePart = z.object({
  protocol: z.enum(['http', 'connect', 'socks5']),
  country: z.union([code, z.literal('')]),
  state: z.union([code, z.literal('')]),
  city: z.union([code, z.literal('')]),
  /** The upstream pool that carried it; '' (or absent) for the default upstream or direct egress. */
  upstreamId: z.union([z.uuid(), z.literal('')]).default(''),
  bytesUp: byteCount,
  bytesDown: byteCount,
  sessions: sessionCount,
});

export const gatewayReportItem = z.object({
  leaseId: z.uuid(),
  bytesUp: byteCount,
  bytesDown: byteCount,
  sessions: sessionCount,
  parts: z.array(gatewayUsagePart).max(10_000).optional(),
  /** Settle the lease after this usage: the rest goes back to the wallet. */
  release: z.boolean().default(false),
});

/** The most connection rows (and session entries) one report may carry. */
export const MAX_REPORT_ROWS = 200_000;

export const gatewayReportInput = z.object({
  gatewayId,
  /** Unique per gateway across restarts; a repeated (gatewayId, seq) is applied once. */
  seq: byteCount,
  items: z.array(gatewayReportItem).max(100_000),
  /** Connections that ended since the previous report (the connection log), stored with it once. */
  connections: z.array(gatewayConnectionRecord).max(MAX_REPORT_ROWS).optional(),
  /** The same as rows (CONNECTION_ROW_FIELDS), what gateways sent before logRows; `connections` is kept for older ones. */
  rows: z.array(gatewayConnectionTuple).max(MAX_REPORT_ROWS).optional(),
  /** Connections as compact rows (what gateways send now) and the sessions their keys name. */
  logSessions: z.array(gatewayLogSession).max(MAX_REPORT_ROWS).optional(),
  logRows: z.array(gatewayLogRow).max(MAX_REPORT_ROWS).optional(),
  /** Open connections of the accounts with a connection limit on this gateway (an account absent: none). */
  openConnections: z
    .array(z.object({ proxyAccountId: z.uuid(), open: z.number().int().min(0).max(10_000_000) }))
    .max(100_000)
    .optional(),
});

export const gatewayReleaseLeasesInput = z.object({
  gatewayId,
  /** Without ids: every open lease of the gateway (shutdown, or a restart after a crash). */
  leaseIds: z.array(z.uuid()).max(100_000).optional(),
});

export type GatewayAuthorizeInput = z.infer<typeof gatewayAuthorizeInput>;
export type GatewayAuthorizeAddressInput = z.infer<typeof gatewayAuthorizeAddressInput>;
export type GatewayReserveLeaseInput = z.infer<typeof gatewayReserveLeaseInput>;
export type GatewayAuthorizeManyInput = z.infer<typeof gatewayAuthorizeManyInput>;
export type GatewayReserveLeasesInput = z.infer<typeof gatewayReserveLeasesInput>;
export type GatewayReportInput = z.infer<typeof gatewayReportInput>;
export type GatewayReportItem = z.infer<typeof gatewayReportItem>;
export type GatewayUsagePart = z.infer<typeof gatewayUsagePart>;
export type GatewayReleaseLeasesInput = z.infer<typeof gatewayReleaseLeasesInput>;
