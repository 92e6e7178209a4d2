/**
 * Opening a tunnel through an upstream proxy (http:// with CONNECT, or socks5://), and the
 * private-address rule every outgoing connection obeys. Shared by the gateway (customers' tunnels)
 * and the server (an admin's "Test" of an upstream), so a test goes out exactly as a line would.
 *
 * Private, loopback, link-local (metadata) and reserved addresses are refused after DNS resolution,
 * also as IPv6 transition forms that embed one, and the connection goes to the very address that
 * was checked (no second lookup to rebind), unless private egress is allowed.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, connect, isIP, type Socket, type TcpSocketConnectOpts } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SocksClient } from 'socks';

/** `no_exit`: every pool serving the country is out of traffic (its provider account is dry). */
export type EgressErrorKind = 'forbidden' | 'dns' | 'refused' | 'unreachable' | 'net_unreachable' | 'timeout' | 'upstream' | 'no_exit';

export class EgressError extends Error {
  constructor(
    readonly kind: EgressErrorKind,
    message: string,
    /** The upstream proxy itself failed (no connection, no answer in time): another one may do. */
    readonly upstreamFailed = false,
    /** A refused CONNECT: the proxy's status line and the start of its body, as it sent them. */
    readonly reply?: string,
  ) {
    super(message);
  }
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the local network.
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The IPv4 addresses an IPv6 address carries by a transition mechanism: traffic to it can end up
 * there (the host's own stack for mapped forms, a NAT64 or 6to4 relay, a Teredo server).
 */
export function embeddedIPv4(address: string): string[] {
  let ip: ipaddr.IPv6;
  try {
    ip = ipaddr.IPv6.parse(address);
  } catch {
    return [];
  }
  const p = ip.parts as [number, number, number, number, number, number, number, number];
  const last = ipv4Of(p[6], p[7]);
  if (p.slice(0, 6).every((x) => x === 0)) return [last]; // IPv4-compatible ::a.b.c.d (deprecated)
  switch (ip.range()) {
    case 'ipv4Mapped': // ::ffff:0:0/96
    case 'rfc6145': // ::ffff:0:0:0/96, stateless translation
    case 'rfc6052': // 64:ff9b::/96 NAT64 (the /48 local-use prefix is refused as a whole)
      return [last];
    case '6to4': // 2002:AABB:CCDD::/48
      return [ipv4Of(p[1], p[2])];
    case 'teredo': // 2001:0:SERVER:flags:port:~CLIENT
      return [ipv4Of(p[2], p[3]), ipv4Of(~p[6] & 0xffff, ~p[7] & 0xffff)];
    default:
      return [];
  }
}

/**
 * Private, loopback, link-local (cloud metadata lives there), reserved or multicast, also when
 * written as an IPv6 transition form of such an IPv4 address.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6') || embeddedIPv4(address).some((v4) => blocked.check(v4, 'ipv4'));
  return true;
}

/** A host without the brackets an IPv6 literal may be written in. */
export function bareHost(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

/** Names that are private whatever DNS says (cloud metadata; `localhost` resolves to loopback anyway). */
const PRIVATE_NAMES = /^(localhost|metadata\.google\.internal|metadata)\.?$|\.localhost\.?$/i;

/**
 * The host's addresses, refused when any is private unless `allowPrivate`; the first one is the
 * address to connect to. `what` names the host in the refusal ("Destination", "Upstream").
 */
export async function resolveChecked(host: string, allowPrivate: boolean, what = 'Destination', upstream = false): Promise<string> {
  const bare = bareHost(host);
  // An upstream of ours on a private address is our configuration's fault, not the client's
  // request: it fails as the upstream (502, logged as a warning), and the next one is tried.
  const refuse = () => new EgressError(upstream ? 'upstream' : 'forbidden', `${what} ${host} is a private address`, upstream);
  if (!allowPrivate && PRIVATE_NAMES.test(bare)) throw refuse();
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new EgressError('dns', `Cannot resolve ${host}`, upstream);
    }
    if (!addresses.length) throw new EgressError('dns', `Cannot resolve ${host}`, upstream);
  }
  if (!allowPrivate && addresses.some(isPrivateAddress)) throw refuse();
  return addresses[0]!;
}

const ignore = () => {};

/** A TCP connection within `timeoutMs`; `extra` passes socket options (the gateway's shared reads). */
export function connectTo(host: string, port: number, timeoutMs: number, upstream = false, extra: Partial<TcpSocketConnectOpts> = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, allowHalfOpen: true, noDelay: true, ...extra });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new EgressError('timeout', `Timed out connecting to ${host}:${port}`, upstream));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // Until the relay takes over, an error must not escape as an unhandled event: 'close' follows.
      socket.on('error', ignore);
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      // The target said no; no route to its network at all; or the host cannot be reached.
      const kind = err.code === 'ECONNREFUSED' ? 'refused' : err.code === 'ENETUNREACH' ? 'net_unreachable' : 'unreachable';
      reject(new EgressError(kind, `Cannot connect to ${host}:${port} (${err.code ?? err.message})`, upstream));
    });
  });
}

/** Reads one response head from an upstream socket; returns the bytes after it. */
function readUntil(socket: Socket, done: (buf: Buffer) => number, timeoutMs: number, limit = 16 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    const fail = (err: Error) => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new EgressError('timeout', 'Upstream proxy timed out', true)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      let end: number;
      try {
        end = done(buf);
      } catch (err) {
        fail(err as Error);
        return;
      }
      if (end >= 0) {
        cleanup();
        socket.pause();
        if (end < buf.length) socket.unshift(buf.subarray(end));
        resolve(buf.subarray(0, end));
      } else if (buf.length > limit) {
        fail(new EgressError('upstream', 'Upstream proxy sent an oversized reply'));
      }
    };
    const onEnd = () => fail(new EgressError('upstream', 'Upstream proxy closed the connection', true));
    const onError = (err: Error) => fail(new EgressError('upstream', `Upstream proxy error: ${err.message}`, true));
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onError);
    socket.resume();
  });
}

function authority(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

export interface UpstreamEndpoint {
  protocol: 'http' | 'socks5';
  host: string;
  port: number;
}

export interface DialOptions {
  timeoutMs: number;
  /** Upstreams on loopback or private networks (tests, development); refused otherwise. */
  allowPrivate: boolean;
  /** More header lines for an http:// upstream's CONNECT (the server's signed line test). */
  headers?: Readonly<Record<string, string>>;
}

/** What a proxy said when it refused a CONNECT: the status line, then its body's first line if it came with the head. */
function refusalReply(head: Buffer, socket: Socket): string {
  const statusLine = head.toString('latin1', 0, Math.max(0, head.indexOf('\r\n'))).slice(0, 200);
  const rest = socket.read() as Buffer | null;
  const body = rest ? rest.toString('utf8', 0, Math.min(rest.length, 300)).split(/\r?\n/)[0]!.trim() : '';
  return body ? `${statusLine}: ${body}` : statusLine;
}

async function viaHttp(
  address: string,
  up: UpstreamEndpoint,
  username: string,
  password: string,
  target: { host: string; port: number },
  timeoutMs: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<Socket> {
  const socket = await connectTo(address, up.port, timeoutMs, true);
  const dest = authority(bareHost(target.host), target.port);
  const auth = username || password ? `Proxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString('base64')}\r\n` : '';
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`CONNECT ${dest} HTTP/1.1\r\nHost: ${dest}\r\n${auth}${extra}\r\n`);
  const head = await readUntil(
    socket,
    (b) => {
      const i = b.indexOf('\r\n\r\n');
      return i < 0 ? -1 : i + 4;
    },
    timeoutMs,
  );
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1'));
  if (!status || status[1] !== '200') {
    const reply = refusalReply(head, socket);
    socket.destroy();
    throw new EgressError('upstream', `Upstream proxy refused the tunnel (${status ? status[1] : 'bad reply'})`, false, reply);
  }
  return socket;
}

/**
 * The socks client hands bytes that came with its final reply to 'data' listeners on the next turn
 * of the event loop, and resumes the socket then: they are kept here instead and the socket stays
 * paused, so the relay reads them first and under its own flow control.
 */
function heldForRelay(socket: Socket): Promise<Socket> {
  return new Promise((resolve) => {
    const early: Buffer[] = [];
    const keep = (chunk: Buffer) => early.push(chunk);
    socket.on('data', keep);
    setImmediate(() => {
      socket.off('data', keep);
      socket.pause();
      if (early.length && !socket.readableEnded) socket.unshift(early.length === 1 ? early[0]! : Buffer.concat(early));
      resolve(socket);
    });
  });
}

async function viaSocks(
  address: string,
  up: UpstreamEndpoint,
  userId: string,
  password: string,
  target: { host: string; port: number },
  timeoutMs: number,
): Promise<Socket> {
  if (Buffer.byteLength(userId) > 255 || Buffer.byteLength(password) > 255) throw new EgressError('upstream', 'Upstream credentials too long', true);
  // Our own connection (half-open allowed, no delay, our timeout); the client speaks SOCKS5 on it.
  const socket = await connectTo(address, up.port, timeoutMs, true);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, timeoutMs);
  try {
    await SocksClient.createConnection({
      proxy: { host: address, port: up.port, type: 5, ...(userId || password ? { userId, password } : {}) },
      command: 'connect',
      destination: { host: bareHost(target.host), port: target.port },
      existing_socket: socket,
    });
  } catch (err) {
    socket.destroy();
    if (timedOut) throw new EgressError('timeout', 'Upstream proxy timed out', true);
    // "rejected connection": the upstream answered and could not reach the target; anything
    // else (closed, bad reply, authentication) is the upstream's own failure.
    const message = (err as Error).message;
    throw new EgressError('upstream', `Upstream SOCKS proxy: ${message}`, !/rejected connection/i.test(message));
  } finally {
    clearTimeout(timer);
  }
  return heldForRelay(socket);
}

/**
 * A tunnel to `target` through the upstream, with credentials already rendered from its templates.
 * The upstream's own host is checked like any destination (issue: admins pointing an upstream at
 * metadata or loopback addresses), and dialled at the address that was checked.
 */
export async function dialUpstream(
  up: UpstreamEndpoint,
  credentials: { username: string; password: string },
  target: { host: string; port: number },
  opts: DialOptions,
): Promise<Socket> {
  const address = await resolveChecked(up.host, opts.allowPrivate, 'Upstream', true);
  return up.protocol === 'socks5'
    ? viaSocks(address, up, credentials.username, credentials.password, target, opts.timeoutMs)
    : viaHttp(address, up, credentials.username, credentials.password, target, opts.timeoutMs, opts.headers);
}
