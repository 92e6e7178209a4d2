/** The gateway's test tools: the shared kit (@proxyhub/testing) bound to the server, plus our gateway. */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadLocations } from '@proxyhub/api';
import { createServer, type ServerParts } from '@proxyhub/server';
import {
  adminClient,
  INTERNAL_KEY,
  startTarget,
  testServerStarter,
  userWithCredits,
  type HttpClient,
  type TestServer as KitTestServer,
} from '@proxyhub/testing';
import { createGateway, type Gateway, type GatewayOptions } from '../src/gateway';

export * from '@proxyhub/testing';

export type TestServer = KitTestServer<ServerParts>;

export const startTestServer = testServerStarter(createServer);

export interface Stack {
  server: TestServer;
  gateway: Gateway;
  port: number;
  proxyUrl: string;
  close(): Promise<void>;
}

/** The real server (PGlite or DATABASE_URL) and our gateway, in-process, on loopback ports. */
export async function startStack(gatewayOpts: Partial<GatewayOptions> = {}): Promise<Stack> {
  const server = await startTestServer();
  const gateway = await startGateway(server, gatewayOpts);
  const port = (gateway.server.address() as AddressInfo).port;
  return {
    server,
    gateway,
    port,
    proxyUrl: `http://127.0.0.1:${port}`,
    async close() {
      await gateway.close();
      await server.close();
    },
  };
}

/** The loopback target server of startTarget. */
export type Target = Awaited<ReturnType<typeof startTarget>>;

/** Small leases and quick retries: a balance or a cap is reached in small steps, within a test's patience. */
export const SMALL_LEASES = { initialLeaseBytes: 256 * 1024, minLeaseBytes: 128 * 1024, emptyRetryMs: 100 };

/** startStack and a loopback target (the stack is closed again if the target does not start). */
export async function startStackAndTarget(gatewayOpts: Partial<GatewayOptions> = {}): Promise<{ stack: Stack; target: Target }> {
  const stack = await startStack(gatewayOpts);
  try {
    return { stack, target: await startTarget() };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/** Closes what a file started, in this order (what never started is passed over). */
export async function closeAll(...parts: Array<{ close(): Promise<unknown> } | undefined>): Promise<void> {
  for (const part of parts) await part?.close();
}

export async function startGateway(server: TestServer, opts: Partial<GatewayOptions> = {}): Promise<Gateway> {
  const gateway = createGateway({
    gatewayId: `test-${randomUUID().slice(0, 8)}`,
    serverUrl: server.url,
    internalApiKey: INTERNAL_KEY,
    allowPrivate: true,
    publicUrl: server.config.publicUrl,
    ...opts,
  });
  await gateway.listen(0, '127.0.0.1');
  return gateway;
}

/** A server with the admin signed in, a loopback target and a user with credits: what an upstream test starts from. */
export async function upstreamTestBed(credits: bigint) {
  // The server builds its location index on first use: not inside a tunnel's handshake deadline.
  loadLocations();
  const server = await startTestServer();
  const admin = await adminClient(server);
  return { server, admin, target: await startTarget(), user: await userWithCredits(server, credits) };
}

/** Deletes every upstream the admin sees (between tests that each make their own). */
export async function deleteUpstreams(admin: HttpClient): Promise<void> {
  const r = await admin.get<{ upstreams: { id: string }[] }>('/admin/upstreams');
  for (const u of r.body.upstreams) await admin.request('DELETE', `/admin/upstreams/${u.id}`);
}
