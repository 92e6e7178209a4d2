/** What a gateway is made with (gateway.ts), and what it says of itself. */
import type { EntryPortRange } from '@proxyhub/core';
import type { AuthCacheOptions } from './auth-cache';
import type { Backend } from './backend';
import type { Logger } from './log';
import type { LoginLimitOptions } from './login-limit';
import type { MeterOptions } from './meter-options';
import type { UpstreamPoolOptions } from './upstream-pool';

export interface GatewayOptions {
  gatewayId: string;
  /** The server's base URL and internal key (the key also signs the server's line tests); or a ready backend (tests). */
  serverUrl?: string;
  internalApiKey?: string;
  backend?: Backend;
  /** Derives sticky sessions the same on every gateway (default: internalApiKey; the fleet shares it). */
  sessionSecret?: string;
  allowPrivate?: boolean;
  /** The default upstream: used when no pool (admin panel) serves a tunnel. */
  upstreamUrl?: string | undefined;
  /** The web app's origin, named in refusals ("top up at .../topup"); default http://localhost:3000. */
  publicUrl?: string;
  /** Health and polling of the admin's upstream pools. */
  upstreams?: Partial<UpstreamPoolOptions>;
  /** How often the gateway reports itself to the fleet (GET /admin/gateways). */
  fleetHeartbeatMs?: number;
  logger?: Logger;
  handshakeTimeoutMs?: number;
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  auth?: Partial<AuthCacheOptions>;
  loginLimits?: Partial<LoginLimitOptions>;
  /** How often the target policy is read from the server (default 5 s). */
  targetPolicyPollMs?: number | undefined;
  meter?: Partial<Omit<MeterOptions, 'gatewayId' | 'backend' | 'logger' | 'metrics'>>;
  /** Settle leases left open by an earlier process with this gateway id (a crash) on listen. */
  releaseStaleLeases?: boolean;
  /**
   * Entry ports (GATEWAY_ENTRY_PORTS), listened on beside the main port: a password-less address's
   * connection to one takes the profile its owner gave that port. Absent or null: none.
   */
  entryPorts?: EntryPortRange | null;
}

export interface GatewayStats {
  connections: number;
  tunnels: number;
  accounts: number;
  heldBytes: number;
}
