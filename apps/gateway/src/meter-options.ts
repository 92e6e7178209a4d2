/** The meter's settings and their defaults (leases, reports, the journal, the connection log). */
import type { Backend } from './backend';
import type { Logger } from './log';
import type { GatewayMetrics } from './metrics';
import type { UsageJournal } from './report/journal';

export interface MeterOptions {
  gatewayId: string;
  backend: Backend;
  logger: Logger;
  /**
   * First lease of an account; later ones are sized by its observed rate (leaseSeconds of traffic).
   * Small (a slow start): accounts that share a wallet (sub-accounts, a shop batch) must not tie it
   * up in leases they do not use, or the next account is refused while the balance is still there.
   */
  initialLeaseBytes: number;
  minLeaseBytes: number;
  /** Caps a lease: with the next one reserved ahead, an account holds at most two. */
  maxLeaseBytes: number;
  leaseSeconds: number;
  reportIntervalMs: number;
  /** A report is sent at least this often while leases are held: the server's lease heartbeat. */
  heartbeatMs: number;
  /** An account without connections for this long gives its leases back. */
  idleReleaseMs: number;
  /** After the server said "empty", new connections are refused for this long without asking again. */
  emptyRetryMs: number;
  /** Unacknowledged usage on disk (survives a crash); written every journalIntervalMs or journalBytes per account. */
  journal?: UsageJournal | undefined;
  journalIntervalMs: number;
  journalBytes: number;
  metrics?: GatewayMetrics | undefined;
  /** GATEWAY_CONNECTION_LOG: false, no connection records are made or reported (usage is billed the same). */
  connectionLog: boolean;
}

export const DEFAULT_METER_OPTIONS = {
  initialLeaseBytes: 1024 * 1024,
  minLeaseBytes: 1024 * 1024,
  maxLeaseBytes: 128 * 1024 * 1024,
  leaseSeconds: 10,
  reportIntervalMs: 2000,
  heartbeatMs: 30_000,
  idleReleaseMs: 15_000,
  emptyRetryMs: 500,
  journalIntervalMs: 250,
  journalBytes: 1024 * 1024,
  connectionLog: true,
} satisfies Partial<MeterOptions>;
