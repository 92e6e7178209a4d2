/**
 * Egress: where a tunnel's target connection comes from. Direct by default, or through an upstream
 * proxy (http:// with CONNECT, or socks5://) whose username is a template carrying the location and
 * the sticky session. Direct egress refuses private, loopback, link-local and metadata addresses,
 * also as IPv6 transition forms that embed one, after DNS resolution, and connects to the very
 * address it checked (no second lookup to rebind).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, connect, isIP, type Socket } from 'node:net';
import type { ProxyLocation } from '@proxyhub/core';
import ipaddr from 'ipaddr.js';
import { SocksClient } from 'socks';
import { sharedReadOption, type SharedReadSocket } from './shared-reads';
import type { Upstream, UpstreamPool } from './upstream-pool';

export type EgressErrorKind = 'forbidden' | 'dns' | 'refused' | 'unreachable' | 'net_unreachable' | 'timeout' | 'upstream';

export class EgressError extends Error {
  constructor(
    readonly kind: EgressErrorKind,
    message: string,
    /** The upstream proxy itself failed (no connection, no answer in time): another one may do. */
    readonly upstreamFailed = false,
  ) {
    super(message);
  }
}

export interface EgressRequest {
  host: string;
  port: number;
  location: ProxyLocation;
  /** Upstream session id, stable for the sticky session's duration (the default upstream's {session}). */
  session: string;
  /** The client's 8-character session token, as its username carries it (a pool's {session}); '' when rotating. */
  token?: string;
  /** The line's upstream session id ({sid}): 8 characters of [a-z0-9], the same on every gateway for the period; '' when rotating. */
  sid: string;
  /** The line's duration; 0 for a rotating line. */
  durationMinutes: number;
  /** The line's session: notes the pool that carried it (the pool itself is chosen from `sid`, upstream-pool.ts). */
  sticky?: { upstreamId: string | null };
}

export interface EgressOptions {
  allowPrivate: boolean;
  upstreamUrl?: string | undefined;
  /** Upstream pools from the admin panel; without any, the default upstream or direct egress. */
  pool?: UpstreamPool | undefined;
  connectTimeoutMs: number;
}

export type Egress = (req: EgressRequest) => Promise<TargetSocket>;

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

const ignore = () => {};

/**
 * `upstreamId`: the pool upstream that carried it ('' for the default upstream or direct egress).
 * `sharedReads`: it reads into the shared buffer (shared-reads.ts), not through 'data' events.
 */
export type TargetSocket = SharedReadSocket & { sharedReads?: boolean; upstreamId?: string };

function connectTo(host: string, port: number, timeoutMs: number, sharedReads = false, upstream = false): Promise<TargetSocket> {
  return new Promise((resolve, reject) => {
    const socket: TargetSocket = connect({
      host,
      port,
      allowHalfOpen: true,
      noDelay: true,
      ...(sharedReads ? { onread: sharedReadOption } : {}),
    });
    if (sharedReads) socket.sharedReads = true;
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

async function resolveChecked(host: string, allowPrivate: boolean): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new EgressError('dns', `Cannot resolve ${host}`);
    }
    if (!addresses.length) throw new EgressError('dns', `Cannot resolve ${host}`);
  }
  if (!allowPrivate && addresses.some(isPrivateAddress)) throw new EgressError('forbidden', `Destination ${host} is a private address`);
  return addresses[0]!;
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

/**
 * `{country} {state} {city} {session} {sid} {minutes}` in an upstream's username, as the client's
 * proxy username wrote them; `session` defaults to the request's sticky session id.
 */
export function fillTemplate(template: string, req: EgressRequest, session = req.session): string {
  const values: Record<string, string> = {
    country: req.location.country,
    state: req.location.state ?? '',
    city: req.location.city ?? '',
    session,
    sid: req.sid,
    minutes: String(req.durationMinutes),
  };
  return template.replace(/\{(country|state|city|session|sid|minutes)\}/g, (_, k: string) => values[k]!);
}

/** A host without the brackets an IPv6 literal may be written in. */
function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

function authority(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

async function viaHttpUpstream(up: Upstream, req: EgressRequest, timeoutMs: number): Promise<Socket> {
  const socket = await connectTo(bare(up.host), up.port, timeoutMs, false, true);
  socket.setNoDelay(true);
  const user = fillTemplate(up.usernameTemplate, req, up.id ? (req.token ?? req.session) : req.session);
  const pass = up.password;
  const target = authority(bare(req.host), req.port);
  const auth = user || pass ? `Proxy-Authorization: Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}\r\n` : '';
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
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
    socket.destroy();
    throw new EgressError('upstream', `Upstream proxy refused the tunnel (${status ? status[1] : 'bad reply'})`);
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

async function viaSocksUpstream(up: Upstream, req: EgressRequest, timeoutMs: number): Promise<Socket> {
  const host = bare(up.host);
  const port = up.port;
  const userId = fillTemplate(up.usernameTemplate, req, up.id ? (req.token ?? req.session) : req.session);
  const password = up.password;
  if (Buffer.byteLength(userId) > 255 || Buffer.byteLength(password) > 255) throw new EgressError('upstream', 'Upstream credentials too long', true);
  // Our own connection (half-open allowed, no delay, our timeout); the client speaks SOCKS5 on it.
  const socket = await connectTo(host, port, timeoutMs, false, true);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, timeoutMs);
  try {
    await SocksClient.createConnection({
      proxy: { host, port, type: 5, ...(userId || password ? { userId, password } : {}) },
      command: 'connect',
      destination: { host: bare(req.host), port: req.port },
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

/** The default upstream (GATEWAY_UPSTREAM_URL) as a pool entry without an id. */
export function upstreamFromUrl(url: string): Upstream {
  const u = new URL(url);
  const socks = u.protocol.startsWith('socks');
  return {
    id: '',
    protocol: socks ? 'socks5' : 'http',
    host: bare(u.hostname),
    port: Number(u.port || (socks ? 1080 : 80)),
    usernameTemplate: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    countries: null,
    weight: 1,
  };
}

async function viaUpstream(up: Upstream, req: EgressRequest, timeoutMs: number): Promise<TargetSocket> {
  const socket: TargetSocket = up.protocol === 'socks5' ? await viaSocksUpstream(up, req, timeoutMs) : await viaHttpUpstream(up, req, timeoutMs);
  socket.upstreamId = up.id;
  return socket;
}

/**
 * Where each tunnel leaves: the enabled pools serving its country (in upstream-pool.ts's order: a
 * sticky line's by its sid, a rotating line's by weight), then the default upstream; the next one is tried when one cannot be reached or does
 * not answer in time, before the client sees an error. With no pool at all: the default upstream,
 * else direct. With pools but none serving the country and no default: refused.
 */
export function createEgress(opts: EgressOptions): Egress {
  const fallback = opts.upstreamUrl ? upstreamFromUrl(opts.upstreamUrl) : null;
  const direct: Egress = async (req) => {
    const address = await resolveChecked(req.host, opts.allowPrivate);
    return connectTo(address, req.port, opts.connectTimeoutMs, true);
  };
  return async (req) => {
    const pool = opts.pool;
    const route = pool?.route(req.location, req.sid) ?? null;
    if (!route && !fallback) return direct(req);
    // The upstream resolves names at its exit; literal private addresses are still ours to refuse.
    const host = bare(req.host);
    if (!opts.allowPrivate && isIP(host) && isPrivateAddress(host)) throw new EgressError('forbidden', `Destination ${req.host} is a private address`);
    const candidates = route ? [...route] : [];
    if (fallback) candidates.push(fallback);
    if (!candidates.length) throw new EgressError('unreachable', `No upstream serves country ${req.location.country}`);
    let last: unknown;
    for (const up of candidates) {
      try {
        const socket = await viaUpstream(up, req, opts.connectTimeoutMs);
        if (up.id) pool?.succeeded(up.id);
        if (req.sticky) req.sticky.upstreamId = up.id || null;
        return socket;
      } catch (err) {
        if (!(err instanceof EgressError) || !err.upstreamFailed) throw err;
        pool?.failed(up.id);
        last = err;
      }
    }
    throw last;
  };
}
