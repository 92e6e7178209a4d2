/**
 * `Proxy-Status` (RFC 9209) on every answer the gateway writes itself, over HTTP forward and
 * CONNECT, through real sockets: `ProxyHub; error=<type>; details="<the body's text>"`, the type a
 * program can act on (denied, DNS, refused, timeout, no exit, our own trouble), the text as the
 * body says it. A relayed answer of the target carries none.
 */
import { createServer, type AddressInfo } from 'node:net';
import { parseItem, Token } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadLocations } from '@proxyhub/api';
import { adminClient, rawExchange, startGateway, startStack, startTarget, userWithCredits, type ProxyUser, type Stack } from './helpers';
import { answerTo } from '../src/protocols/answers';
import { refusal } from '../src/protocols/handshake';
import { startSilentUpstream } from './upstream-proxies';

const GiB = 1n << 30n;

let stack: Stack;
/** A second server and gateway whose only pools are the broken ones below (all lines go through them). */
let pooled: Stack;
let target: Awaited<ReturnType<typeof startTarget>>;
let rich: ProxyUser;
let empty: ProxyUser;
let pooledUser: ProxyUser;
let closedPort: number;
let silent: Awaited<ReturnType<typeof startSilentUpstream>>;

beforeAll(async () => {
  loadLocations();
  stack = await startStack({ connectTimeoutMs: 500 });
  target = await startTarget();
  rich = await userWithCredits(stack.server, GiB);
  empty = await userWithCredits(stack.server, 0n);
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  // Lines for Japan go through a pool that accepts and never answers (a connect that times out);
  // lines for Germany through a pool whose port is closed (an upstream that is not there).
  silent = await startSilentUpstream();
  pooled = await startStack({ connectTimeoutMs: 500 });
  const admin = await adminClient(pooled.server);
  for (const [country, port] of [
    ['JP', silent.port],
    ['DE', closedPort],
  ] as const) {
    const r = await admin.post<{ upstream: { id: string } }>('/admin/upstreams', {
      name: `Pool ${country}`,
      protocol: 'http',
      host: '127.0.0.1',
      port,
      password: 'pool-secret',
      countries: [country],
      costPerGbCents: 30,
    });
    expect(r.status).toBe(201);
    expect((await admin.request('PATCH', `/admin/upstreams/${r.body.upstream.id}`, { enabled: true })).status).toBe(200);
  }
  pooledUser = await userWithCredits(pooled.server, GiB);
  await vi.waitFor(
    () => {
      if (pooled.gateway.upstreams.upstreams.length !== 2) throw new Error('the pools are not read yet');
    },
    { timeout: 15_000, interval: 100 },
  );
}, 60_000);
afterAll(async () => {
  await pooled?.close();
  await stack?.close();
  await target?.close();
  silent?.close();
});

interface Answer {
  status: number;
  proxyStatus: string | undefined;
  body: string;
}
async function answer(port: number, head: string): Promise<Answer> {
  const text = (await rawExchange(port, [Buffer.from(head)])).data.toString('utf8');
  const [top, body = ''] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = top!.split('\r\n');
  const field = lines.find((l) => l.toLowerCase().startsWith('proxy-status:'));
  return { status: Number(statusLine!.split(' ')[1]), proxyStatus: field?.slice(field.indexOf(':') + 1).trim(), body: body.replace(/\n$/, '') };
}
const auth = (name: string, pass: string) => `Proxy-Authorization: Basic ${Buffer.from(`${name}:${pass}`).toString('base64')}\r\n`;
const connect = (hostPort: string, who?: { name: string; pass: string }) =>
  `CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n${who ? auth(who.name, who.pass) : ''}\r\n`;
const forward = (hostPort: string, who?: { name: string; pass: string }) =>
  `GET http://${hostPort}/hello HTTP/1.1\r\nHost: ${hostPort}\r\nConnection: close\r\n${who ? auth(who.name, who.pass) : ''}\r\n`;
const line = (u: ProxyUser, country = 'US', pass = u.proxyPassword) => ({ name: u.username({ country }, 0), pass });

/** Another gateway of the first server with these options, on its own port, closed after `use`. */
async function withGateway(opts: Parameters<typeof startGateway>[1], use: (port: number) => Promise<void>): Promise<void> {
  const gw = await startGateway(stack.server, opts);
  try {
    await use((gw.server.address() as AddressInfo).port);
  } finally {
    await gw.close();
  }
}

/** The answer's Proxy-Status read as the structured field it is: its name, error type and details. */
function expectProxyStatus(a: Answer, status: number, error: string): void {
  expect(a.status).toBe(status);
  expect(a.proxyStatus).toBe(`ProxyHub; error=${error}; details=${JSON.stringify(a.body)}`);
  const [name, params] = parseItem(a.proxyStatus!);
  expect(name).toEqual(new Token('ProxyHub'));
  expect(params.get('error')).toEqual(new Token(error));
  expect(params.get('details')).toBe(a.body);
}

describe('Proxy-Status on the gateway’s own answers', () => {
  const cases: Array<[string, () => { hostPort: string; who?: { name: string; pass: string }; port?: number }, number, string]> = [
    ['no credentials', () => ({ hostPort: `127.0.0.1:${target.port}` }), 407, 'http_request_denied'],
    ['a wrong password', () => ({ hostPort: `127.0.0.1:${target.port}`, who: line(rich, 'US', 'WrongPassword1') }), 407, 'http_request_denied'],
    ['no credit', () => ({ hostPort: `127.0.0.1:${target.port}`, who: line(empty) }), 402, 'http_request_denied'],
    ['a name that does not resolve', () => ({ hostPort: 'no-such-host.invalid:80', who: line(rich) }), 502, 'dns_error'],
    ['a closed port', () => ({ hostPort: `127.0.0.1:${closedPort}`, who: line(rich) }), 502, 'connection_refused'],
    [
      'a pool that never answers',
      () => ({ hostPort: `127.0.0.1:${target.port}`, who: line(pooledUser, 'JP'), port: pooled.port }),
      502,
      'destination_unavailable',
    ],
    [
      'a pool that is not there',
      () => ({ hostPort: `127.0.0.1:${target.port}`, who: line(pooledUser, 'DE'), port: pooled.port }),
      502,
      'destination_unavailable',
    ],
  ];
  for (const [what, made, status, error] of cases) {
    it(`${what}: ${status} with error=${error}, over CONNECT and HTTP forward`, async () => {
      const c = made();
      const port = c.port ?? stack.port;
      expectProxyStatus(await answer(port, connect(c.hostPort, c.who)), status, error);
      expectProxyStatus(await answer(port, forward(c.hostPort, c.who)), status, error);
    });
  }

  it('pools that fail say the exit is unavailable, never where our provider is', async () => {
    for (const country of ['JP', 'DE']) {
      const a = await answer(pooled.port, connect(`127.0.0.1:${target.port}`, line(pooledUser, country)));
      expect(a.body).toMatch(new RegExp(`^No exit could be reached for ${country} \\((no answer in time|the connection failed)\\), try again$`));
      expect(a.proxyStatus).not.toContain(String(silent.port));
      expect(a.proxyStatus).not.toContain(String(closedPort));
    }
  });

  // A target connect that times out cannot be made on loopback (every address here answers or
  // refuses at once): the answer the gateway writes for it, as it writes it.
  it('a target that never accepts the connection: 504 connection_timeout', () => {
    const written = answerTo('http', refusal('timeout', 'Timed out connecting to 203.0.113.9:80'), { publicUrl: 'https://proxyhub.example' })!.toString();
    const [top, body] = written.split('\r\n\r\n');
    const field = top!
      .split('\r\n')
      .find((l) => l.startsWith('Proxy-Status: '))!
      .slice('Proxy-Status: '.length);
    expectProxyStatus({ status: Number(top!.split(' ')[1]), proxyStatus: field, body: body!.replace(/\n$/, '') }, 504, 'connection_timeout');
  });

  it('a blocked destination (private addresses refused): 403 http_request_denied', () =>
    withGateway({ allowPrivate: false }, async (port) => {
      expectProxyStatus(await answer(port, connect(`127.0.0.1:${target.port}`, line(rich))), 403, 'http_request_denied');
      expectProxyStatus(await answer(port, forward(`127.0.0.1:${target.port}`, line(rich))), 403, 'http_request_denied');
    }));

  it('too many failed logins: 429 http_request_denied', () =>
    withGateway({ loginLimits: { perAddress: 2 } }, async (port) => {
      let a: Answer | null = null;
      for (let i = 0; i < 5 && a?.status !== 429; i++) a = await answer(port, connect(`127.0.0.1:${target.port}`, line(rich, 'US', `Wrong${i}Password`)));
      expectProxyStatus(a!, 429, 'http_request_denied');
    }));

  it('the server cannot be asked: 503 proxy_internal_error', () =>
    withGateway({ serverUrl: 'http://127.0.0.1:1', backend: undefined }, async (port) => {
      expectProxyStatus(await answer(port, connect(`127.0.0.1:${target.port}`, line(rich))), 503, 'proxy_internal_error');
      expectProxyStatus(await answer(port, forward(`127.0.0.1:${target.port}`, line(rich))), 503, 'proxy_internal_error');
    }));

  it('a relayed answer is the target’s own: no Proxy-Status', async () => {
    const a = await answer(stack.port, forward(`127.0.0.1:${target.port}`, line(rich)));
    expect(a.status).toBe(200);
    expect(a.proxyStatus).toBeUndefined();
  });
});
