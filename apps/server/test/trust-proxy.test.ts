// Behind proxies the client is the right-most X-Forwarded-For entry a trusted proxy did not add:
// whatever a client writes on the left is its own text and buys it nothing. IPv6 clients are
// counted per /64 in every per-address limit.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '@proxyhub/api';
import { loadEnv } from '../src/env';
import { signedInUser, STRONG_PASSWORD, startTestServer, uniqueEmail, type TestServer } from './helpers';

const register = (server: TestServer, xff: string) =>
  server.client({ ip: xff }).post('/auth/register', { email: uniqueEmail('xff'), password: STRONG_PASSWORD, name: 'Forwarded Client' });

describe('TRUST_PROXY=1 (one hop: the last entry is the client)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: DEFAULT_RATE_LIMITS, trustProxy: 1 });
  });
  afterAll(() => server.close());

  it('15 registrations with different left-most entries and the same right-most one: the 11th and later are 429', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 15; i++) statuses.push((await register(server, `198.51.101.${i}, 203.0.113.9`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(5).fill(429));
    // Another right-most address has its own allowance.
    expect((await register(server, '198.51.101.1, 203.0.113.10')).status).toBe(200);
  });

  it('wrong passwords with different left-most entries count against the one right-most address', async () => {
    const { email } = await signedInUser(server, 'Forwarded Owner', { client: server.client({ ip: '203.0.113.50' }) });
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) {
      statuses.push((await server.client({ ip: `198.51.102.${i}, 203.0.113.11` }).post('/auth/login', { email, password: 'Wrong-password-1' })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it('/metrics: "127.0.0.1, 203.0.113.9" relayed by the trusted hop is a remote client (401, 403 with a wrong key)', async () => {
    const relayed = (headers: Record<string, string>) =>
      server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '127.0.0.1, 203.0.113.9', ...headers } });
    expect((await relayed({})).statusCode).toBe(401);
    expect((await relayed({ authorization: 'Bearer wrong-key' })).statusCode).toBe(403);
  });

  it('IPv6 clients count per /64: right-most entries 2001:db8::1 … 2001:db8::f, the 11th register is 429', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 15; i++) statuses.push((await register(server, `198.51.103.${i}, 2001:db8::${i.toString(16)}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(5).fill(429));
    // The next /64 is another line.
    expect((await register(server, '2001:db8:0:1::1')).status).toBe(200);
  });

  it('IPv6 clients count per /64 for sign-in too', async () => {
    const { email } = await signedInUser(server, 'Six Owner', { client: server.client({ ip: '203.0.113.51' }) });
    const statuses: number[] = [];
    for (let i = 1; i <= 11; i++)
      statuses.push((await server.client({ ip: `2001:db8:5:5::${i.toString(16)}` }).post('/auth/login', { email, password: 'Wrong-password-1' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it('IPv6 clients count per /64 for forgot-password and reset too', async () => {
    const forgot: number[] = [];
    for (let i = 1; i <= 11; i++) {
      const client = server.client({ ip: `198.51.105.${i}, 2001:db8:7:7::${i.toString(16)}` });
      forgot.push((await client.post('/auth/forgot-password', { email: uniqueEmail('six-forgot') })).status);
    }
    expect(forgot.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(forgot[10]).toBe(429);

    const reset: number[] = [];
    for (let i = 1; i <= 21; i++) {
      const client = server.client({ ip: `198.51.106.${i}, 2001:db8:8:8:${i.toString(16)}::1` });
      reset.push((await client.post('/auth/reset-password', { token: `not-a-token-${i}`, password: STRONG_PASSWORD })).status);
    }
    expect(reset.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(reset[20]).toBe(429);
  });

  it('IPv6 clients count per /64 for wrong second-factor codes too: 30 from one /64 over two accounts, then 429 there only', async () => {
    const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const accounts = [];
    for (const ip of ['203.0.113.60', '203.0.113.61']) {
      const { client, email } = await signedInUser(server, 'Six Codes', { client: server.client({ ip }) });
      const setup = await client.post<{ secret: string }>('/auth/2fa/setup', {});
      expect((await client.post('/auth/2fa/enable', { code: totp(setup.body.secret).generate() })).status).toBe(200);
      accounts.push({ email, secret: setup.body.secret });
    }
    // Six digits that no step of the accepted window produces.
    const wrong = (secret: string) => {
      const valid = new Set([-60_000, -30_000, 0, 30_000, 60_000].map((d) => totp(secret).generate({ timestamp: Date.now() + d })));
      return ['000000', '111111', '222222'].find((c) => !valid.has(c))!;
    };
    // A pending sign-in (right password) on an address of its own; 15 wrong codes per account stay under its 20.
    const pending = async (email: string, ip: string) => {
      const c = server.client({ ip });
      expect((await c.post('/auth/login', { email, password: STRONG_PASSWORD })).body).toMatchObject({ requiresTwoFactor: true });
      return c;
    };
    for (let p = 0; p < 6; p++) {
      const account = accounts[p < 3 ? 0 : 1]!;
      const c = await pending(account.email, `2001:db8:9:9::${(p + 1).toString(16)}`);
      for (let i = 0; i < 5; i++) expect((await c.post('/auth/login/2fa', { code: wrong(account.secret) })).status).toBe(401);
    }
    const b = accounts[1]!;
    const sameSlash64 = await pending(b.email, '2001:db8:9:9:ffff::1');
    expect((await sameSlash64.post('/auth/login/2fa', { code: wrong(b.secret) })).status).toBe(429);
    const otherSlash64 = await pending(b.email, '2001:db8:9:a::1');
    expect((await otherSlash64.post('/auth/login/2fa', { code: wrong(b.secret) })).status).toBe(401);
  });
});

describe('TRUST_PROXY as a list of proxy addresses and CIDRs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits: DEFAULT_RATE_LIMITS, trustProxy: ['127.0.0.1', '10.0.0.0/8'] });
  });
  afterAll(() => server.close());

  it('skips every entry a listed proxy added and takes the next one from the right', async () => {
    // Client -> 10.1.2.3 (a second proxy, listed) -> 127.0.0.1 (the socket's peer, listed).
    const statuses: number[] = [];
    for (let i = 1; i <= 11; i++) statuses.push((await register(server, `198.51.104.${i}, 203.0.113.12, 10.1.2.3`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
  });

  it('/metrics: a forged loopback entry behind the listed proxies is not local', async () => {
    const relayed = (xff: string) => server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } });
    expect((await relayed('127.0.0.1, 203.0.113.9')).statusCode).toBe(401);
    expect((await relayed('127.0.0.1, 203.0.113.9, 10.0.0.7')).statusCode).toBe(401);
    expect((await relayed('127.0.0.1')).statusCode).toBe(200);
  });

  it('a peer that is not a listed proxy is the client, whatever it forwards', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('TRUST_PROXY in the environment', () => {
  const trust = (value: string) => loadEnv({ DATA_DIR: mkdtempSync(join(tmpdir(), 'proxyhub-env-')), TRUST_PROXY: value }).TRUST_PROXY;

  it('takes a hop count, or a list of proxy addresses and CIDRs', () => {
    expect(trust('1')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('true')).toBe(1);
    expect(trust('')).toBeUndefined();
    expect(trust('0')).toBeUndefined();
    expect(trust('false')).toBeUndefined();
    expect(trust('10.0.0.1, 10.8.0.0/16,fd00::/8, loopback')).toEqual(['10.0.0.1', '10.8.0.0/16', 'fd00::/8', 'loopback']);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => trust('yes')).toThrowError(/TRUST_PROXY: must be a hop count or a comma-separated list of proxy addresses or CIDRs \(not "yes"\)/);
    expect(() => trust('10.0.0.0/33')).toThrowError(/TRUST_PROXY: .*\(not "10\.0\.0\.0\/33"\)/);
    expect(() => trust('10.0.0.1, example.com')).toThrowError(/\(not "example\.com"\)/);
  });
});
