/**
 * The gateway fleet: each gateway's heartbeat shows in GET /admin/gateways with its figures; one
 * killed without returning its leases (its server calls stop for good) shows as down after the
 * silence, and the server's periodic job settles its leases by the crash-safety rules (the bytes it
 * never reported go back to the wallet, the ledger holds), while a live gateway's leases stay.
 */
import type { AddressInfo } from 'node:net';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayLeases } from '@proxyhub/db';
import { startBackgroundJobs } from '@proxyhub/server';
import { createBackend, type Backend } from '../src/backend';
import {
  adminClient,
  balances,
  connectTunnel,
  expectLedgerHolds,
  INTERNAL_KEY,
  startGateway,
  startTarget,
  startTestServer,
  userWithCredits,
  type HttpClient,
  type TestServer,
} from './helpers';

const MiB = 1024 * 1024;
const DOWN_AFTER_MS = 1500;
let server: TestServer;
let admin: HttpClient;
let target: Awaited<ReturnType<typeof startTarget>>;
let stopJobs: () => Promise<void>;

beforeAll(async () => {
  // The down interval is 60 s by default (GATEWAY_DOWN_AFTER_SECONDS); shortened for the test.
  server = await startTestServer({ gatewayDownAfterMs: DOWN_AFTER_MS });
  stopJobs = await startBackgroundJobs({ deps: server.deps, periodic: true });
  admin = await adminClient(server);
  target = await startTarget();
});
afterAll(async () => {
  await stopJobs?.();
  await target?.close();
  await server?.close();
});

interface FleetRow {
  id: string;
  version: string;
  startedAt: string;
  lastSeenAt: string;
  status: 'up' | 'down';
  openTunnels: number;
  bytesPerSecUp: number;
  bytesPerSecDown: number;
  leasedBytes: number;
  upstreamErrors: number;
}

async function fleet(): Promise<FleetRow[]> {
  const r = await admin.get<{ gateways: FleetRow[] }>('/admin/gateways');
  expect(r.status).toBe(200);
  return r.body.gateways;
}

/** The real backend, until `kill()`: from then on nothing reaches the server, as from a dead process. */
function killable(): { backend: Backend; kill(): void } {
  const real = createBackend(server.url, INTERNAL_KEY);
  let dead = false;
  const guard =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> =>
      dead ? Promise.reject(new Error('gateway killed')) : f(...a);
  return {
    backend: {
      authorize: guard(real.authorize),
      authorizeAddress: guard(real.authorizeAddress),
      reserveLease: guard(real.reserveLease),
      report: guard(real.report),
      releaseLeases: guard(real.releaseLeases),
      upstreams: guard(real.upstreams),
      heartbeat: guard(real.heartbeat),
    },
    kill: () => {
      dead = true;
    },
  };
}

const openLeases = (gatewayId: string) =>
  server.database.db
    .select()
    .from(gatewayLeases)
    .where(and(eq(gatewayLeases.gatewayId, gatewayId), isNull(gatewayLeases.settledAt)));

const waitFor = async (check: () => Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('gateway fleet', () => {
  it('lists each gateway from its heartbeats; one killed with leases open goes down after the silence and its leases are settled', async () => {
    const u = await userWithCredits(server, 100n * BigInt(MiB));
    const doomed = killable();
    // Its heartbeats: one at start, then as the test sends them (beat()).
    const gw = await startGateway(server, { gatewayId: 'fleet-doomed', backend: doomed.backend, fleetHeartbeatMs: 3_600_000 });
    const alive = await startGateway(server, { gatewayId: 'fleet-alive', fleetHeartbeatMs: 200 });
    const port = (gw.server.address() as AddressInfo).port;

    // An open tunnel that moved some bytes: the gateway holds a lease.
    const tunnel = await connectTunnel(port, target.port, u.username(), u.proxyPassword);
    let got = 0;
    tunnel.on('data', (d: Buffer) => (got += d.length));
    tunnel.write('GET /download?bytes=2000000 HTTP/1.1\r\nHost: target\r\n\r\n');
    await waitFor(async () => got >= 2_000_000, 10_000);
    await gw.heartbeat.beat();
    const [row] = (await fleet()).filter((g) => g.id === 'fleet-doomed');
    expect(row).toMatchObject({ id: 'fleet-doomed', version: '0.1.0', status: 'up', openTunnels: 1, upstreamErrors: 0 });
    expect(row!.leasedBytes).toBeGreaterThan(0);
    expect(Date.parse(row!.startedAt)).toBeLessThanOrEqual(Date.parse(row!.lastSeenAt));
    expect(Date.now() - Date.parse(row!.lastSeenAt)).toBeLessThan(5000);
    // The rate covers the 2 MB relayed since the heartbeat at start.
    expect(row!.bytesPerSecDown).toBeGreaterThan(0);
    expect(row!.bytesPerSecUp).toBeGreaterThan(0);
    expect((await fleet()).find((g) => g.id === 'fleet-alive')).toMatchObject({ status: 'up', openTunnels: 0 });
    expect((await openLeases('fleet-doomed')).length).toBeGreaterThan(0);
    await gw.flush();
    const billedBefore = await balances(u);

    // Killed: no heartbeat, no report, no lease returned. Down after the silence...
    doomed.kill();
    tunnel.destroy();
    gw.server.close();
    await waitFor(async () => (await fleet()).find((g) => g.id === 'fleet-doomed')!.status === 'down', 10_000);
    expect((await fleet()).find((g) => g.id === 'fleet-alive')!.status).toBe('up');
    // ...and the server's job settles its leases: what was leased and not reported is credit again.
    await waitFor(async () => (await openLeases('fleet-doomed')).length === 0, 10_000);
    const after = await balances(u);
    expect(after.usage).toBe(billedBefore.usage);
    expect(after.credits + after.usage).toBe(100n * BigInt(MiB));
    await expectLedgerHolds(server, u.userId);
    await alive.close();
  });
});
