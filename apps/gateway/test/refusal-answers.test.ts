/**
 * Refusals say what happened, through real sockets: SOCKS5 reply codes (RFC 1928: 2 not allowed,
 * 4 host unreachable, 5 refused, 1 general failure) and RFC 1929 status for wrong credentials;
 * HTTP 402/403/407/429 with a one-line body a person can act on and the protocol's headers; and a
 * log line per refusal with its reason and the proxy user id, never the password.
 */
import { createServer, type AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxyUsername } from '@proxyhub/core';
import { proxyAccounts } from '@proxyhub/db';
import { createLogger } from '../src/log';
import { adminClient, curl, rawExchange, startGateway, startStack, startTarget, userWithCredits, type ProxyUser, type Stack } from './helpers';

const PUBLIC_URL = 'https://proxyhub.example';
const GiB = 1n << 30n;
const logLines: Record<string, unknown>[] = [];
let stack: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let rich: ProxyUser;

beforeAll(async () => {
  stack = await startStack({
    publicUrl: `${PUBLIC_URL}/`,
    logger: createLogger('info', (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>)),
  });
  target = await startTarget();
  rich = await userWithCredits(stack.server, GiB);
});
afterAll(async () => {
  await stack?.close();
  await target?.close();
});

const GREETING = Buffer.from([5, 1, 2]);
const login = (name: string, pass: string) => Buffer.concat([Buffer.from([1, name.length]), Buffer.from(name), Buffer.from([pass.length]), Buffer.from(pass)]);
const connectIp = (port: number, ip = [127, 0, 0, 1]) => Buffer.from([5, 1, 0, 1, ...ip, port >> 8, port & 0xff]);
const connectName = (host: string, port: number) =>
  Buffer.concat([Buffer.from([5, 1, 0, 3, host.length]), Buffer.from(host), Buffer.from([port >> 8, port & 0xff])]);

/** A whole SOCKS5 exchange; the bytes the gateway answered before it closed. */
async function socks(port: number, name: string, pass: string, request: Buffer) {
  return [...(await rawExchange(port, [GREETING, login(name, pass), request])).data];
}
/** Method chosen, login accepted, then the reply code `rep` for the request. */
const replied = (rep: number) => [5, 2, 1, 0, 5, rep, 0, 1, 0, 0, 0, 0, 0, 0];

interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
async function http(port: number, head: string): Promise<HttpAnswer> {
  const text = (await rawExchange(port, [Buffer.from(head)])).data.toString('utf8');
  const [top, body = ''] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = top!.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}
const auth = (name: string, pass: string) => `Proxy-Authorization: Basic ${Buffer.from(`${name}:${pass}`).toString('base64')}\r\n`;
const connectHead = (hostPort: string, name?: string, pass?: string) =>
  `CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n${name !== undefined ? auth(name, pass!) : ''}\r\n`;

/** One line of text, ending in a newline. */
const oneLine = (body: string) => expect(body).toMatch(/^[^\r\n]+\n$/);

describe('SOCKS5 reply codes', () => {
  it('wrong credentials: RFC 1929 failure (status 1) right after the login', async () => {
    expect(await socks(stack.port, rich.username(), 'WrongPassword1', connectIp(target.port))).toEqual([5, 2, 1, 1]);
  });

  it('a location not offered: RFC 1929 failure (status 1) after the login, the reason logged', async () => {
    expect(await socks(stack.port, rich.username({ country: 'ZZ' }), rich.proxyPassword, connectIp(target.port))).toEqual([5, 2, 1, 1]);
  });

  it('no credit, a suspended user: 2 (not allowed by ruleset)', async () => {
    const empty = await userWithCredits(stack.server, 0n);
    expect(await socks(stack.port, empty.username(), empty.proxyPassword, connectIp(target.port))).toEqual(replied(2));

    const suspended = await userWithCredits(stack.server, GiB);
    const admin = await adminClient(stack.server);
    expect((await admin.post(`/admin/users/${suspended.userId}/suspend`, { reason: 'test' })).status).toBe(200);
    expect(await socks(stack.port, suspended.username(), suspended.proxyPassword, connectIp(target.port))).toEqual(replied(2));
  });

  it('a private destination (GATEWAY_ALLOW_PRIVATE off): 2', async () => {
    const strict = await startGateway(stack.server, { allowPrivate: false, publicUrl: PUBLIC_URL });
    try {
      const port = (strict.server.address() as AddressInfo).port;
      expect(await socks(port, rich.username(), rich.proxyPassword, connectIp(target.port))).toEqual(replied(2));
      const r = await http(port, connectHead(`127.0.0.1:${target.port}`, rich.username(), rich.proxyPassword));
      expect(r.status).toBe(403);
      expect(r.body).toBe('Forbidden: Destination 127.0.0.1 is a private address; this proxy only connects to public internet addresses\n');
    } finally {
      await strict.close();
    }
  });

  it('a name that does not resolve: 4 (host unreachable); a closed port: 5 (connection refused)', async () => {
    expect(await socks(stack.port, rich.username(), rich.proxyPassword, connectName('no-such-host.invalid', 80))).toEqual(replied(4));
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await socks(stack.port, rich.username(), rich.proxyPassword, connectIp(port))).toEqual(replied(5));
  });

  it('the server cannot be asked: 1 (general failure), not an authentication failure', async () => {
    const orphan = await startGateway(stack.server, { serverUrl: 'http://127.0.0.1:1', backend: undefined });
    try {
      const port = (orphan.server.address() as AddressInfo).port;
      expect(await socks(port, rich.username(), rich.proxyPassword, connectIp(target.port))).toEqual(replied(1));
      expect(await http(port, connectHead(`127.0.0.1:${target.port}`, rich.username(), rich.proxyPassword))).toMatchObject({ status: 503 });
    } finally {
      await orphan.close();
    }
  });
});

describe('HTTP answers', () => {
  it('402: out of data, with where to top up', async () => {
    const empty = await userWithCredits(stack.server, 0n);
    const r = await http(stack.port, connectHead(`127.0.0.1:${target.port}`, empty.username(), empty.proxyPassword));
    expect(r.status).toBe(402);
    expect(r.body).toBe(`Out of data: top up at ${PUBLIC_URL}/topup\n`);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('407: Proxy-Authenticate kept; the body says what is wrong and where the credentials are', async () => {
    const missing = await http(stack.port, connectHead(`127.0.0.1:${target.port}`));
    expect(missing.status).toBe(407);
    expect(missing.headers['proxy-authenticate']).toBe('Basic realm="ProxyHub"');
    // Without credentials the source address could have been a password-less one; the body says it is not.
    expect(missing.body).toBe('Proxy authentication required: send your proxy username and password (127.0.0.1 is not a password-less address)\n');

    const wrong = await http(stack.port, connectHead(`127.0.0.1:${target.port}`, rich.username(), 'WrongPassword1'));
    expect(wrong.status).toBe(407);
    expect(wrong.headers['proxy-authenticate']).toBe('Basic realm="ProxyHub"');
    expect(wrong.body).toBe(`Invalid proxy username or password: copy them from ${PUBLIC_URL}/proxies\n`);

    const malformed = await http(stack.port, connectHead(`127.0.0.1:${target.port}`, 'not-a-proxy-username', 'x'));
    expect(malformed.status).toBe(407);
    oneLine(malformed.body);
    expect(malformed.body).toContain(`${PUBLIC_URL}/proxies`);
  });

  it('429 after too many failed logins from one address: Retry-After and a plain sentence', async () => {
    const strict = await startGateway(stack.server, { loginLimits: { perAddress: 3 } });
    try {
      const port = (strict.server.address() as AddressInfo).port;
      let r: HttpAnswer | null = null;
      for (let i = 0; i < 6 && r?.status !== 429; i++) r = await http(port, connectHead(`127.0.0.1:${target.port}`, rich.username(), `Wrong${i}Password`));
      expect(r?.status).toBe(429);
      expect(Number(r?.headers['retry-after'])).toBeGreaterThan(0);
      oneLine(r!.body);
      expect(r!.body).toMatch(/^Too many failed proxy logins/);
    } finally {
      await strict.close();
    }
  });
});

describe('a proxy account at its limit while the wallet has data', () => {
  it('402 Proxy account limit reached for CONNECT and HTTP forward, SOCKS5 2 with the reason logged; never "top up"', async () => {
    const u = await userWithCredits(stack.server, GiB);
    const made = await u.client.post<{ account: { proxyUserId: string; proxyPassword: string } }>('/api/proxy-accounts', { name: 'capped', capGB: 0.01 });
    expect(made.status).toBe(201);
    const sub = made.body.account;
    // Its whole limit used, as reports of its traffic would leave it; the owner's wallet still holds a GiB.
    await stack.server.deps.db.update(proxyAccounts).set({ usedBytes: 10737419n }).where(eq(proxyAccounts.proxyUserId, sub.proxyUserId));
    const name = buildProxyUsername({ proxyUserId: sub.proxyUserId, location: { country: 'US' }, durationMinutes: 60 });

    const connect = await http(stack.port, connectHead(`127.0.0.1:${target.port}`, name, sub.proxyPassword));
    expect(connect.status).toBe(402);
    expect(connect.body).toBe('Proxy account limit reached\n');
    oneLine(connect.body);
    const forward = await http(stack.port, `GET ${target.url}/hello HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\n${auth(name, sub.proxyPassword)}\r\n`);
    expect(forward.status).toBe(402);
    expect(forward.body).toBe('Proxy account limit reached\n');
    expect(await socks(stack.port, name, sub.proxyPassword, connectIp(target.port))).toEqual(replied(2));

    const logged = logLines.filter((l) => l.msg === 'proxy request refused' && l.proxyUserId === sub.proxyUserId);
    expect(logged.map((l) => [l.protocol, l.kind, l.reason])).toEqual([
      ['http', 'cap_reached', 'Proxy account limit reached'],
      ['http', 'cap_reached', 'Proxy account limit reached'],
      ['socks5', 'cap_reached', 'Proxy account limit reached'],
    ]);
    // The owner's main account still spends the wallet.
    expect((await curl(['-x', stack.proxyUrl, '-U', `${u.username()}:${u.proxyPassword}`, `${target.url}/hello`])).status).toBe(200);
  });
});

describe('the log', () => {
  it('names the refusal, its reason and the proxy user id, never the password', async () => {
    const empty = await userWithCredits(stack.server, 0n);
    await http(stack.port, connectHead(`127.0.0.1:${target.port}`, empty.username(), empty.proxyPassword));
    await socks(stack.port, rich.username(), 'SecretWrong99', connectIp(target.port));
    const refusals = logLines.filter((l) => l.msg === 'proxy request refused');
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'empty', proxyUserId: empty.proxyUserId, protocol: 'http', level: 30 }));
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'bad_credentials', proxyUserId: rich.proxyUserId, protocol: 'socks5' }));
    const all = JSON.stringify(logLines);
    expect(all).not.toContain(empty.proxyPassword);
    expect(all).not.toContain('SecretWrong99');
  });
});
