import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { SocksClient } from 'socks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env';
import { createGateway } from '../src/gateway';
import { startMetricsServer } from '../src/metrics-server';
import {
  closeAll,
  closeServer,
  connectTunnel,
  curl,
  exchangeUntilClosed,
  INTERNAL_KEY,
  listen,
  promSample,
  startStackAndTarget,
  userWithCredits,
  type Stack,
  type Target,
} from './helpers';

const MiB = 1024 * 1024;
let stack: Stack;
let target: Target;
let metrics: Awaited<ReturnType<typeof startMetricsServer>>;

beforeAll(async () => {
  ({ stack, target } = await startStackAndTarget());
  metrics = await startMetricsServer(stack.gateway, { port: 0, host: '127.0.0.1', internalApiKey: INTERNAL_KEY, serverUrl: stack.server.url });
});
afterAll(() => closeAll(metrics, stack, target));

/** A loopback port nobody listens on (it was free a moment ago). */
async function freeClosedPort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await closeServer(s);
  return port;
}

const get = (path: string, port = metrics.port) => fetch(`http://127.0.0.1:${port}${path}`);

const sample = (text: string, name: string, labels: Record<string, string> = {}) => promSample(text, name, labels) ?? 0;

const scrape = async () => {
  const r = await get('/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return r.text();
};

describe('gateway metrics, through real sockets', () => {
  it('a CONNECT tunnel raises the connection, login, byte, lease and report figures', async () => {
    const u = await userWithCredits(stack.server, 64n * BigInt(MiB));
    const before = await scrape();
    const socket = await connectTunnel(stack.port, target.port, u.username(), u.proxyPassword);
    const received = await exchangeUntilClosed(socket, `GET /download?bytes=${2 * MiB} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
    expect(received).toBeGreaterThan(2 * MiB);
    await stack.gateway.flush();
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('gateway_connections_total', { protocol: 'http' })).toBe(1);
    expect(delta('gateway_auth_results_total', { result: 'ok' })).toBe(1);
    // Metered bytes are what crossed the tunnel after the proxy's own answer.
    expect(delta('gateway_bytes_total', { direction: 'down' })).toBe(received);
    expect(delta('gateway_bytes_total', { direction: 'up' })).toBeGreaterThan(0);
    expect(delta('gateway_lease_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta('gateway_report_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta('gateway_authorize_duration_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(after).toMatch(/^gateway_open_connections \d+$/m);
    expect(after).toMatch(/^gateway_leased_bytes \d+$/m);
  });

  it('counts SOCKS5 apart, refused logins by reason, and targets that cannot be reached', async () => {
    const u = await userWithCredits(stack.server, 16n * BigInt(MiB));
    const before = await scrape();
    const s = await SocksClient.createConnection({
      proxy: { host: '127.0.0.1', port: stack.port, type: 5, userId: u.username(), password: u.proxyPassword },
      command: 'connect',
      destination: { host: '127.0.0.1', port: target.port },
    });
    s.socket.destroy();
    const wrong = await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:WrongPassword1`, `${target.url}/hello`]);
    expect(wrong.status).toBe(407);
    const closed = await freeClosedPort();
    const refused = await curl(['-p', '-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `http://127.0.0.1:${closed}/`]);
    expect(refused.code).not.toBe(0);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('gateway_connections_total', { protocol: 'socks5' })).toBe(1);
    expect(delta('gateway_auth_results_total', { result: 'bad_credentials' })).toBe(1);
    expect(delta('gateway_refusals_total', { protocol: 'http', kind: 'bad_credentials' })).toBe(1);
    expect(delta('gateway_upstream_errors_total', { kind: 'refused' })).toBe(1);
  });

  it('answers /health and /ready (the server reached), and nothing else', async () => {
    expect((await get('/health')).status).toBe(200);
    const ready = await get('/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await get('/nothing')).status).toBe(404);
    const withKey = await fetch(`http://127.0.0.1:${metrics.port}/metrics`, { headers: { authorization: `Bearer ${INTERNAL_KEY}` } });
    expect(withKey.status).toBe(200);
  });

  it('is not ready while its server cannot be reached', async () => {
    const dead = `http://127.0.0.1:${await freeClosedPort()}`;
    const gateway = createGateway({ gatewayId: `gw-${randomUUID().slice(0, 8)}`, serverUrl: dead, internalApiKey: INTERNAL_KEY, allowPrivate: true });
    const m = await startMetricsServer(gateway, { port: 0, host: '127.0.0.1', internalApiKey: INTERNAL_KEY, serverUrl: dead });
    try {
      const notListening = await get('/ready', m.port);
      expect(notListening.status).toBe(503);
      await gateway.listen(0, '127.0.0.1');
      const r = await get('/ready', m.port);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ status: 'not ready', reason: 'server unreachable' });
    } finally {
      await m.close();
      await gateway.close();
    }
  });

  it('takes its port from GATEWAY_METRICS_PORT: 3002 unless told, 0 or off for none', () => {
    expect(loadEnv({ INTERNAL_API_KEY: 'k' }).metricsPort).toBe(3002);
    expect(loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_METRICS_PORT: 'off' }).metricsPort).toBeNull();
    expect(loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_METRICS_PORT: '0' }).metricsPort).toBeNull();
    expect(() => loadEnv({ INTERNAL_API_KEY: 'k', GATEWAY_METRICS_PORT: 'yes' })).toThrow(/GATEWAY_METRICS_PORT/);
  });
});
