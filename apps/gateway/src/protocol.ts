/**
 * Parsers for the two handshakes the gateway speaks, on untrusted bytes: every length is checked
 * before it is read, and anything malformed is a refusal, never an exception that escapes.
 */
import { isIP } from 'node:net';

export const MAX_HEAD_BYTES = 16 * 1024;

export interface HttpHead {
  method: string;
  target: string;
  version: string;
  /** Raw header lines (name, value) in order. */
  headers: Array<[string, string]>;
  /** Bytes of the head including the blank line. */
  length: number;
}

export type HeadResult = { ok: true; head: HttpHead } | { ok: false; status: number; message: string } | null;

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses a request head when the buffer holds a whole one; null while more bytes are needed. */
export function parseHttpHead(buf: Buffer): HeadResult {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) {
    if (buf.length > MAX_HEAD_BYTES) return { ok: false, status: 431, message: 'Request header too large' };
    return null;
  }
  if (end > MAX_HEAD_BYTES) return { ok: false, status: 431, message: 'Request header too large' };
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0]!);
  if (!m) return { ok: false, status: 400, message: 'Malformed request line' };
  const headers: Array<[string, string]> = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.indexOf(':');
    if (c <= 0) return { ok: false, status: 400, message: 'Malformed header line' };
    const name = line.slice(0, c);
    if (!TOKEN_RE.test(name)) return { ok: false, status: 400, message: 'Malformed header name' };
    headers.push([name, line.slice(c + 1).trim()]);
  }
  return { ok: true, head: { method: m[1]!, target: m[2]!, version: m[3]!, headers, length: end + 4 } };
}

export function header(head: HttpHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of head.headers) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** `Proxy-Authorization: Basic base64(user:pass)`; null when missing or not Basic. */
export function parseBasic(value: string | undefined): { username: string; password: string } | null {
  if (!value) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  return { username: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export interface HostPort {
  host: string;
  port: number;
}

function validPort(p: string): number | null {
  if (!/^\d{1,5}$/.test(p)) return null;
  const n = Number(p);
  return n >= 1 && n <= 65535 ? n : null;
}

const HOSTNAME_RE = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})?)*\.?$/;

export function validHost(host: string): boolean {
  return host.length > 0 && host.length <= 253 && (isIP(host) !== 0 || HOSTNAME_RE.test(host));
}

/** CONNECT's authority form: `host:port` or `[v6]:port`. */
export function parseAuthority(target: string): HostPort | null {
  let host: string;
  let portStr: string;
  if (target.startsWith('[')) {
    const close = target.indexOf(']');
    if (close < 0 || target[close + 1] !== ':') return null;
    host = target.slice(1, close);
    portStr = target.slice(close + 2);
    if (isIP(host) !== 6) return null;
  } else {
    const c = target.lastIndexOf(':');
    if (c <= 0) return null;
    host = target.slice(0, c);
    portStr = target.slice(c + 1);
    if (!validHost(host)) return null;
  }
  const port = validPort(portStr);
  return port ? { host, port } : null;
}

/** An absolute-URI forward request: `http://host[:port]/path?query`. */
export function parseAbsoluteUri(target: string): (HostPort & { path: string; authority: string }) | null {
  if (!/^http:\/\//i.test(target)) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!validHost(host) || url.username || url.password) return null;
  const port = url.port ? validPort(url.port) : 80;
  if (!port) return null;
  return { host, port, path: `${url.pathname}${url.search}`, authority: url.host };
}

const HOP_BY_HOP = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-authenticate']);

/**
 * The request as the origin should see it: origin-form target, no proxy credentials or hop-by-hop
 * headers, and `Connection: close` (one request per tunnel keeps the byte accounting exact).
 */
export function originRequestHead(head: HttpHead, path: string, authority: string): Buffer {
  let out = `${head.method} ${path} ${head.version}\r\n`;
  let hasHost = false;
  for (const [k, v] of head.headers) {
    const lower = k.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (lower === 'host') hasHost = true;
    out += `${k}: ${v}\r\n`;
  }
  if (!hasHost) out += `Host: ${authority}\r\n`;
  out += 'Connection: close\r\n\r\n';
  return Buffer.from(out, 'latin1');
}

/** How many body bytes follow the head: Content-Length, everything (chunked), or none. */
export function requestBodyLength(head: HttpHead): number | null {
  const te = header(head, 'transfer-encoding');
  if (te) return Infinity;
  const cl = header(head, 'content-length');
  if (cl === undefined) return 0;
  if (!/^\d{1,15}$/.test(cl)) return null;
  return Number(cl);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  402: 'Payment Required',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function httpResponse(status: number, message: string): Buffer {
  const body = `${message}\n`;
  const extra = status === 407 ? 'Proxy-Authenticate: Basic realm="ProxyHub"\r\n' : status === 429 ? 'Retry-After: 60\r\n' : '';
  return Buffer.from(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export const CONNECT_OK = Buffer.from('HTTP/1.1 200 Connection Established\r\n\r\n');

// SOCKS5 (RFC 1928) and its username/password subnegotiation (RFC 1929).
export const SOCKS = {
  NO_ACCEPTABLE: Buffer.from([5, 0xff]),
  USERPASS: Buffer.from([5, 2]),
  AUTH_OK: Buffer.from([1, 0]),
  AUTH_FAIL: Buffer.from([1, 1]),
  REP: { OK: 0, GENERAL: 1, NOT_ALLOWED: 2, NET_UNREACHABLE: 3, HOST_UNREACHABLE: 4, REFUSED: 5, TTL_EXPIRED: 6, CMD_UNSUPPORTED: 7, ATYP_UNSUPPORTED: 8 },
} as const;

export function socksReply(rep: number): Buffer {
  return Buffer.from([5, rep, 0, 1, 0, 0, 0, 0, 0, 0]);
}

export type SocksGreeting = { methods: number[]; length: number } | { error: string } | null;

export function parseSocksGreeting(b: Buffer): SocksGreeting {
  if (b.length < 2) return null;
  if (b[0] !== 5) return { error: 'not SOCKS5' };
  const n = b[1]!;
  if (n === 0) return { error: 'no authentication methods' };
  if (b.length < 2 + n) return null;
  return { methods: [...b.subarray(2, 2 + n)], length: 2 + n };
}

export type SocksAuth = { username: string; password: string; length: number } | { error: string } | null;

export function parseSocksAuth(b: Buffer): SocksAuth {
  if (b.length < 2) return null;
  if (b[0] !== 1) return { error: 'bad subnegotiation version' };
  const ulen = b[1]!;
  if (b.length < 2 + ulen + 1) return null;
  const plen = b[2 + ulen]!;
  const total = 3 + ulen + plen;
  if (b.length < total) return null;
  return { username: b.toString('utf8', 2, 2 + ulen), password: b.toString('utf8', 3 + ulen, total), length: total };
}

export type SocksRequest = (HostPort & { length: number }) | { error: string; rep: number } | null;

export function parseSocksRequest(b: Buffer): SocksRequest {
  if (b.length < 4) return null;
  if (b[0] !== 5) return { error: 'bad request version', rep: SOCKS.REP.GENERAL };
  if (b[1] !== 1) return { error: 'only CONNECT is supported', rep: SOCKS.REP.CMD_UNSUPPORTED };
  const atyp = b[3];
  let host: string;
  let off: number;
  if (atyp === 1) {
    if (b.length < 10) return null;
    host = `${b[4]}.${b[5]}.${b[6]}.${b[7]}`;
    off = 8;
  } else if (atyp === 3) {
    if (b.length < 5) return null;
    const len = b[4]!;
    if (b.length < 5 + len + 2) return null;
    host = b.toString('latin1', 5, 5 + len);
    off = 5 + len;
    if (!validHost(host)) return { error: 'invalid host name', rep: SOCKS.REP.HOST_UNREACHABLE };
  } else if (atyp === 4) {
    if (b.length < 22) return null;
    const parts: string[] = [];
    for (let i = 0; i < 8; i++) parts.push(b.readUInt16BE(4 + i * 2).toString(16));
    host = parts.join(':');
    off = 20;
  } else {
    return { error: 'unsupported address type', rep: SOCKS.REP.ATYP_UNSUPPORTED };
  }
  const port = b.readUInt16BE(off);
  if (port === 0) return { error: 'port 0', rep: SOCKS.REP.NOT_ALLOWED };
  return { host, port, length: off + 2 };
}
