/**
 * The catalogue at the gateway, through real sockets: a line for a country the operator does not
 * offer is refused (HTTP 407 saying so; SOCKS5 reply 2, not allowed, as for any unknown location)
 * and the refusal is logged with its reason; a country added to the catalogue works; a rotating
 * line (duration 0) is accepted and relayed.
 */
import { loadLocations } from '@proxyhub/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { adminClient, curl, rawExchange, startStack, startTarget, userWithCredits, type HttpClient, type ProxyUser, type Stack } from './helpers';

const MiB = 1024 * 1024;
const logLines: Record<string, unknown>[] = [];
let stack: Stack;
let admin: HttpClient;
let target: Awaited<ReturnType<typeof startTarget>>;
let user: ProxyUser;

beforeAll(async () => {
  loadLocations();
  stack = await startStack({ logger: createLogger('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)) });
  admin = await adminClient(stack.server);
  target = await startTarget();
  user = await userWithCredits(stack.server, 10n * BigInt(MiB));
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

const GREETING = Buffer.from([5, 1, 2]);
const login = (name: string, pass: string) => Buffer.concat([Buffer.from([1, name.length]), Buffer.from(name), Buffer.from([pass.length]), Buffer.from(pass)]);
const connectIp = (port: number) => Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff]);

describe('the catalogue at the gateway', () => {
  it('refuses a country not offered over HTTP (407) and SOCKS5 (authentication failure), logs why, and serves it once offered', async () => {
    expect((await admin.request('PUT', '/admin/catalogue', { countries: ['US', 'DE'] })).status).toBe(200);

    const pt = user.username({ country: 'PT' }, 10, 'CATALOG1');
    const viaHttp = await curl(['-x', stack.proxyUrl, '-U', `${pt}:${user.proxyPassword}`, `${target.url}/hello`]);
    expect(viaHttp.status).toBe(407);
    expect(viaHttp.stdout).toMatch(/^Location not offered: PT/);

    const viaSocks = await rawExchange(stack.port, [GREETING, login(pt, user.proxyPassword), connectIp(target.port)]);
    // Method 2 chosen, then the login fails (RFC 1929 status 1): the username is what is refused.
    expect([...viaSocks.data]).toEqual([5, 2, 1, 1]);

    const refusals = logLines.filter((l) => l.msg === 'proxy request refused' && l.kind === 'bad_location');
    expect(refusals).toContainEqual(expect.objectContaining({ protocol: 'http', reason: 'Location not offered: PT', proxyUserId: user.proxyUserId }));
    expect(refusals).toContainEqual(expect.objectContaining({ protocol: 'socks5', reason: 'Location not offered: PT', proxyUserId: user.proxyUserId }));

    // An offered country goes through; a country added to the catalogue does too (new location).
    const us = await curl(['-x', stack.proxyUrl, '-U', `${user.username({ country: 'US' }, 10)}:${user.proxyPassword}`, `${target.url}/hello`]);
    expect(us).toMatchObject({ status: 200, stdout: 'hello from target\n' });
    expect((await admin.request('PUT', '/admin/catalogue', { countries: ['US', 'DE', 'NG'] })).status).toBe(200);
    const ng = await curl(['-x', `socks5h://${user.username({ country: 'NG' }, 10)}:${user.proxyPassword}@127.0.0.1:${stack.port}`, `${target.url}/hello`]);
    expect(ng).toMatchObject({ status: 200, stdout: 'hello from target\n' });
  });

  it('accepts a rotating line (duration 0) over HTTP and SOCKS5 and relays it directly', async () => {
    const line = user.username({ country: 'US' }, 0);
    expect(line).toMatch(/_US_0_[A-Z0-9]{8}$/);
    for (const args of [
      ['-x', stack.proxyUrl, '-U', `${line}:${user.proxyPassword}`],
      ['-x', `socks5h://${line}:${user.proxyPassword}@127.0.0.1:${stack.port}`],
    ]) {
      expect(await curl([...args, `${target.url}/hello`])).toMatchObject({ status: 200, stdout: 'hello from target\n' });
    }
  });
});
