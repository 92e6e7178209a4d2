import { createTRPCClient, httpBatchLink, httpLink } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import type { HttpClient } from './http-client';
import { INTERNAL_KEY, type TestServer } from './server';

/** A typed tRPC client as internal tools use it: a bearer token, or a cookie header, and the Origin. */
export function trpcClient(server: TestServer, opts: { bearer?: string; cookie?: () => string } = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${server.url}/trpc`,
        transformer: superjson,
        headers: () => {
          const h: Record<string, string> = { origin: server.config.publicUrl };
          if (opts.bearer) h.authorization = `Bearer ${opts.bearer}`;
          const c = opts.cookie?.();
          if (c) h.cookie = c;
          return h;
        },
      }),
    ],
  });
}

/** What the shop bot and other internal tools use: the internal key as a bearer token. */
export const internalClient = (server: TestServer) => trpcClient(server, { bearer: INTERNAL_KEY });
export const sessionClient = (server: TestServer, http: HttpClient) => trpcClient(server, { cookie: () => http.cookieHeader() });

/** A typed tRPC client that shares the HttpClient's cookie jar, Origin and bearer key. */
export function trpcFor(server: TestServer, client: HttpClient, opts: { batch?: boolean } = {}) {
  const link = ((opts.batch ?? true) ? httpBatchLink : httpLink)({ url: `${server.url}/trpc`, transformer: superjson, fetch: client.fetch });
  return createTRPCClient<AppRouter>({ links: [link] });
}

/** A gateway's heartbeat as the gateway sends it (the fleet, the status page), with idle numbers. */
export function gatewayHeartbeat(server: TestServer, gatewayId: string) {
  return internalClient(server).gateway.heartbeat.mutate({
    gatewayId,
    version: '1.0.0',
    startedAt: new Date(),
    openTunnels: 0,
    bytesPerSecUp: 0,
    bytesPerSecDown: 0,
    leasedBytes: 0,
    upstreamErrors: 0,
  });
}
