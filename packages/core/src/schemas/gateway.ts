import { z } from 'zod';
import { LOCATION_CODE_RE, PROXY_USER_ID_RE } from '../proxy-username';

/** Inputs of the gateway's internal procedures (gateway.*), called with the internal key only. */

const gatewayId = z.string().min(1).max(128);
const byteCount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const code = z.string().regex(LOCATION_CODE_RE);

export const gatewayLocation = z.object({ country: code, state: code.optional(), city: code.optional() });

export const gatewayAuthorizeInput = z.object({
  /** Lowercase alphanumeric, as the username carries it. */
  proxyUserId: z.string().regex(PROXY_USER_ID_RE),
  password: z.string().min(1).max(256),
  /** Checked against the known locations when given. */
  location: gatewayLocation.optional(),
});

export const gatewayReserveLeaseInput = z.object({
  gatewayId,
  proxyAccountId: z.uuid(),
  /** Requested size; the grant may be smaller (what is left) or zero (empty balance). */
  bytes: byteCount.min(1),
});

export const gatewayReportItem = z.object({
  leaseId: z.uuid(),
  bytesUp: byteCount,
  bytesDown: byteCount,
  sessions: z.number().int().min(0).max(1_000_000_000),
  /** Settle the lease after this usage: the rest goes back to the wallet. */
  release: z.boolean().default(false),
});

export const gatewayReportInput = z.object({
  gatewayId,
  /** Unique per gateway across restarts; a repeated (gatewayId, seq) is applied once. */
  seq: byteCount,
  items: z.array(gatewayReportItem).max(100_000),
});

export const gatewayReleaseLeasesInput = z.object({
  gatewayId,
  /** Without ids: every open lease of the gateway (shutdown, or a restart after a crash). */
  leaseIds: z.array(z.uuid()).max(100_000).optional(),
});

export type GatewayAuthorizeInput = z.infer<typeof gatewayAuthorizeInput>;
export type GatewayReserveLeaseInput = z.infer<typeof gatewayReserveLeaseInput>;
export type GatewayReportInput = z.infer<typeof gatewayReportInput>;
export type GatewayReportItem = z.infer<typeof gatewayReportItem>;
export type GatewayReleaseLeasesInput = z.infer<typeof gatewayReleaseLeasesInput>;
