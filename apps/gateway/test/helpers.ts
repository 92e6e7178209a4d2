/** The gateway's test tools: the shared kit (@proxyhub/testing) bound to the server, plus our gateway. */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type ServerParts } from '@proxyhub/server';
import { INTERNAL_KEY, testServerStarter, type TestServer as KitTestServer } from '@proxyhub/testing';
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
