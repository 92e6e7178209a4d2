/**
 * HTTP proxying: CONNECT tunnels and absolute-URI forwarding, credentials in Proxy-Authorization
 * (Basic). Parses untrusted bytes: every length is checked before it is read, and anything
 * malformed is a refusal, never an exception that escapes.
 */
import { LINE_TEST_HEADER } from '@proxyhub/core/node';
import { refusal, type Accepted, type Credentials, type HandshakeReader, type HandshakeResult, type Login, type Refusal } from './handshake';
import { INVALID_TARGET_HOST_MESSAGE } from '@proxyhub/core';
import { hostHeaderTarget, splitAuthority, targetHost, validPort, type HostPort } from './host';
import { header, headerTokens, requestCloses, requestFraming } from './http-framing';
import type { ForwardRequest, HttpHead } from './http-message';

export { header };
export type { ForwardRequest, HttpHead };

export const MAX_HEAD_BYTES = 16 * 1024;

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses a request head when the buffer holds a whole one; null while more bytes are needed. */
export function parseHttpHead(buf: Buffer): { ok: true; head: HttpHead } | Refusal | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_HEAD_BYTES ? refusal('too_large', 'Request header too large') : null;
  if (end > MAX_HEAD_BYTES) return refusal('too_large', 'Request header too large');
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0]!);
  if (!m) return refusal('bad_request', 'Malformed request line');
  const headers: Array<[string, string]> = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.indexOf(':');
    if (c <= 0) return refusal('bad_request', 'Malformed header line');
    const name = line.slice(0, c);
    if (!TOKEN_RE.test(name)) return refusal('bad_request', 'Malformed header name');
    headers.push([name, line.slice(c + 1).trim()]);
  }
  return { ok: true, head: { method: m[1]!, target: m[2]!, version: m[3]!, headers, length: end + 4 } };
}

/** `Proxy-Authorization: Basic base64(user:pass)`; null when missing or not Basic. */
export function parseBasic(value: string | undefined): Credentials | null {
  if (!value) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  return { username: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

/** A target host that is no host (a numeric spelling that names no address included). */
const INVALID_TARGET = refusal('bad_target', INVALID_TARGET_HOST_MESSAGE);

/** CONNECT's authority form: `host:port` or `[v6]:port`. */
export function parseAuthority(target: string): HostPort | Refusal {
  const split = splitAuthority(target);
  if (!split?.host || !split.port) return refusal('bad_target', 'Malformed CONNECT target: expected host:port');
  const host = targetHost(split.host);
  return host ? { host, port: split.port } : INVALID_TARGET;
}

/**
 * An absolute-URI forward request: `http://host[:port]/path?query`; null when it is no http://
 * URI; the invalid-host refusal when its authority names no host (`http://256.0.0.1/` included).
 */
export function parseAbsoluteUri(target: string): (HostPort & { path: string; authority: string }) | Refusal | null {
  if (!/^http:\/\//i.test(target)) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return INVALID_TARGET;
  }
  // The URL parser already wrote a numeric IPv4 spelling as its dotted quad.
  const host = targetHost(url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);
  if (!host || url.username || url.password) return INVALID_TARGET;
  const port = url.port ? validPort(url.port) : 80;
  if (!port) return null;
  return { host, port, path: `${url.pathname}${url.search}`, authority: url.host };
}

const HOP_BY_HOP = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-authenticate']);

/**
 * The request as the origin should see it: origin-form target, `Host` the URI's authority (RFC
 * 9112 section 3.2.2: the client's own Host is replaced, so a name the policy never saw cannot pick
 * a site behind the origin's address), no proxy credentials or hop-by-hop headers (those the
 * Connection header names included), and `Connection: close` when the client closes after it;
 * otherwise the connection to the origin stays open for the client's next request.
 */
export function originRequestHead(head: HttpHead, path: string, authority: string, close: boolean): Buffer {
  const named = headerTokens(head, 'connection');
  let out = `${head.method} ${path} ${head.version}\r\nHost: ${authority}\r\n`;
  for (const [k, v] of head.headers) {
    const lower = k.toLowerCase();
    if (lower === 'host' || HOP_BY_HOP.has(lower) || (named.length && named.includes(lower))) continue;
    out += `${k}: ${v}\r\n`;
  }
  out += close ? 'Connection: close\r\n\r\n' : '\r\n';
  return Buffer.from(out, 'latin1');
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

export function httpResponse(status: number, message: string, proxyStatus?: string): Buffer {
  const body = `${message}\n`;
  const extra =
    (status === 407 ? 'Proxy-Authenticate: Basic realm="ProxyHub"\r\n' : status === 429 ? 'Retry-After: 60\r\n' : '') +
    (proxyStatus ? `Proxy-Status: ${proxyStatus}\r\n` : '');
  return Buffer.from(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export const CONNECT_OK = Buffer.from('HTTP/1.1 200 Connection Established\r\n\r\n');
/** The name of the header that carries a connection's record id on its CONNECT answer and forwarded responses. */
export const CONNECTION_HEADER = 'X-ProxyHub-Connection';
/** A CONNECT's answer naming the id of the record the connection will have (GET /api/connections/:id). */
export function connectEstablished(id: string): Buffer {
  return Buffer.from(`HTTP/1.1 200 Connection Established\r\n${CONNECTION_HEADER}: ${id}\r\n\r\n`, 'latin1');
}

/** An absolute-URI request to forward: where it goes, its body, and whether the client closes after it. */
export type HttpRequest = { ok: true; target: HostPort; forward: ForwardRequest | null } | Refusal;

/** The target a request's one `Host` header names ('' without one); null for a bad one or several (RFC 9112 section 3.2). */
function requestHostHeader(head: HttpHead): string | null {
  const values = head.headers.filter(([k]) => k.toLowerCase() === 'host');
  if (values.length > 1) return null;
  return values.length ? hostHeaderTarget(values[0]![1]) : '';
}

/** Where the request goes: a CONNECT authority, or the origin of an absolute URI and its body. */
export function httpRequestOf(head: HttpHead): HttpRequest {
  if (head.method === 'CONNECT') {
    const target = parseAuthority(head.target);
    return 'ok' in target ? target : { ok: true, target, forward: null };
  }
  const uri = parseAbsoluteUri(head.target);
  if (!uri) return refusal('bad_target', 'This is a proxy: send CONNECT or an absolute http:// URI');
  if ('ok' in uri) return uri;
  const hostHeader = requestHostHeader(head);
  if (hostHeader === null) return INVALID_TARGET;
  const body = requestFraming(head);
  if ('ok' in body) return body;
  return {
    ok: true,
    target: { host: uri.host, port: uri.port },
    forward: {
      head,
      path: uri.path,
      authority: uri.authority,
      body,
      close: requestCloses(head),
      authorization: header(head, 'proxy-authorization'),
      hostHeader,
    },
  };
}

/** `Proxy-Authorization` as a login: null without one; a refusal when it is there but unreadable. */
export function credentialsOf(authorization: string | undefined): Credentials | null | Refusal {
  if (authorization === undefined) return null;
  return parseBasic(authorization) ?? refusal('missing', 'Proxy authentication required: send your proxy username and password');
}

/** One request head, then the login; the tunnel or the forwarded request follows. */
export async function httpHandshake<S extends { ok: true }>(reader: HandshakeReader, login: Login<S>): Promise<HandshakeResult<S>> {
  const parsed = await reader.read(parseHttpHead);
  if (!parsed?.ok) return parsed;
  const { head } = parsed;
  const requestedAt = Date.now();
  reader.skip(head.length);
  const request = httpRequestOf(head);
  if (!request.ok) return request;
  // No header at all: a password-less address may go on without one; a header we cannot read may not.
  const credentials = credentialsOf(header(head, 'proxy-authorization'));
  if (credentials && 'ok' in credentials) return credentials;
  // The server's line test comes as a CONNECT (POST /api/proxy-test); a forwarded request carries no such thing.
  const lineTest = request.forward ? undefined : header(head, LINE_TEST_HEADER);
  if (credentials && lineTest !== undefined) credentials.lineTest = lineTest;
  const session = await login(credentials);
  if (!session.ok) return session;
  const accepted: Accepted<S> = { ok: true, session, target: request.target, leftover: reader.rest(), established: CONNECT_OK, requestedAt };
  if (!request.forward) return accepted;
  return { ...accepted, established: null, forward: request.forward };
}
