/**
 * The gateway's own small HTTP listener (GATEWAY_METRICS_PORT): /metrics in Prometheus text for a
 * loopback caller or the internal key, /health (the process is up) and /ready (it listens for
 * proxy clients and has reached the server lately, or reaches its /ready now). Kept off the proxy
 * port, which speaks only proxy protocols.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsAccess } from '@proxyhub/core/node';
import type { Gateway } from './gateway';
import { createNodeFetch } from './http-fetch';

/** A server call that succeeded this recently makes the gateway ready without asking again. */
const RECENT_CONTACT_MS = 10_000;

export interface MetricsServerOptions {
  port: number;
  host: string;
  internalApiKey: string;
  /** Asked (GET /ready) when the gateway has not reached the server lately. */
  serverUrl?: string | undefined;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', ...headers });
  res.end(text);
}

/** Null when ready, else why not. */
async function notReady(gateway: Gateway, serverUrl: string | undefined, probe: ReturnType<typeof createNodeFetch>): Promise<string | null> {
  if (!gateway.server.listening) return 'not accepting proxy connections';
  if (Date.now() - gateway.metrics.lastServerContactAt < RECENT_CONTACT_MS) return null;
  if (!serverUrl) return 'server not reached yet';
  try {
    const r = await probe(`${serverUrl.replace(/\/$/, '')}/ready`);
    if (!r.ok) return `server not ready (${r.status})`;
    gateway.metrics.lastServerContactAt = Date.now();
    return null;
  } catch {
    return 'server unreachable';
  }
}

export async function startMetricsServer(gateway: Gateway, opts: MetricsServerOptions): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const probe = createNodeFetch(2000);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'Method not allowed' }, { allow: 'GET, HEAD' });
    if (path === '/health') return send(res, 200, { status: 'ok' });
    if (path === '/ready') {
      const reason = await notReady(gateway, opts.serverUrl, probe);
      return reason ? send(res, 503, { status: 'not ready', reason }) : send(res, 200, { status: 'ready' });
    }
    if (path === '/metrics') {
      // No proxy in front of this port is trusted: the socket's address is the caller's.
      const peer = req.socket.remoteAddress;
      const access = metricsAccess({ peer, client: peer, authorization: req.headers.authorization }, opts.internalApiKey);
      if (access === 'unauthenticated')
        return send(res, 401, { error: 'Metrics need the internal key outside this machine' }, { 'www-authenticate': 'Bearer' });
      if (access === 'forbidden') return send(res, 403, { error: 'Invalid internal key' });
      const body = await gateway.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': gateway.metrics.registry.contentType });
      return void res.end(body);
    }
    send(res, 404, { error: 'Not found' });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'metrics failed' });
      else res.destroy();
    });
  });
  server.listen(opts.port, opts.host);
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
