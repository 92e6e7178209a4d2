/**
 * The gateway's place in the fleet: every few seconds it tells the server who it is (its id, the
 * one its leases carry), its version and how it is doing, so admins see it in GET /admin/gateways.
 * A gateway silent for the server's down interval is shown down and its leases are settled.
 */
import { readFileSync } from 'node:fs';
import type { GatewayHeartbeatInput } from '@proxyhub/core';
import type { Backend } from './backend';
import type { Logger } from './log';

/** This package's version; src/ and dist/ both sit beside package.json. */
export const GATEWAY_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

export interface FleetStats {
  openTunnels: number;
  /** Bytes relayed since start, each way. */
  bytesUp: number;
  bytesDown: number;
  leasedBytes: number;
  upstreamErrors: number;
}

export class FleetHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt = new Date();
  private last: { at: number; up: number; down: number } | null = null;
  private failing = false;

  constructor(
    private readonly backend: Backend,
    private readonly gatewayId: string,
    private readonly stats: () => FleetStats,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** What the next heartbeat carries: rates over the time since the previous one. */
  sample(now = Date.now()): GatewayHeartbeatInput {
    const s = this.stats();
    const prev = this.last ?? { at: this.startedAt.getTime(), up: 0, down: 0 };
    const seconds = Math.max((now - prev.at) / 1000, 0.001);
    this.last = { at: now, up: s.bytesUp, down: s.bytesDown };
    return {
      gatewayId: this.gatewayId,
      version: GATEWAY_VERSION,
      startedAt: this.startedAt,
      openTunnels: s.openTunnels,
      bytesPerSecUp: Math.round((s.bytesUp - prev.up) / seconds),
      bytesPerSecDown: Math.round((s.bytesDown - prev.down) / seconds),
      leasedBytes: s.leasedBytes,
      upstreamErrors: s.upstreamErrors,
    };
  }

  async beat(): Promise<void> {
    try {
      await this.backend.heartbeat(this.sample());
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn({ err }, 'fleet heartbeat failed; retrying');
      this.failing = true;
    }
  }
}
