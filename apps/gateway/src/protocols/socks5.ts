/**
 * SOCKS5 (RFC 1928) with username/password login (RFC 1929), CONNECT only. Parses untrusted
 * bytes: every length is checked before it is read, and no message may need more than
 * MAX_MESSAGE_BYTES, so a client cannot make the gateway buffer for it.
 */
import { refusal, type HandshakeReader, type HandshakeResult, type Login, type Refusal, type RefusalKind } from './handshake';
import { INVALID_TARGET_HOST_MESSAGE } from '@proxyhub/core';
import { targetHost, type HostPort } from './host';

export const SOCKS = {
  NO_ACCEPTABLE: Buffer.from([5, 0xff]),
  USERPASS: Buffer.from([5, 2]),
  NO_AUTH: Buffer.from([5, 0]),
  AUTH_OK: Buffer.from([1, 0]),
  AUTH_FAIL: Buffer.from([1, 1]),
  REP: { OK: 0, GENERAL: 1, NOT_ALLOWED: 2, NET_UNREACHABLE: 3, HOST_UNREACHABLE: 4, REFUSED: 5, TTL_EXPIRED: 6, CMD_UNSUPPORTED: 7, ATYP_UNSUPPORTED: 8 },
} as const;

const NO_AUTH_METHOD = 0;
const USERNAME_PASSWORD_METHOD = 2;
/**
 * Login refusals that are not about the credentials (RFC 1929 can only say "failed"): the login is
 * accepted and the request gets the reply code that says why (not allowed, general failure).
 * Nothing is relayed either way. A location not offered is a login failure (the username itself is
 * what is refused), logged with its reason; it does not count as a failed password.
 */
const REFUSED_AT_REQUEST = new Set<RefusalKind>(['disabled', 'expired', 'unavailable']);
/** The longest message is a login: 3 + 255 + 255 bytes. */
const MAX_MESSAGE_BYTES = 1024;

export function socksReply(rep: number): Buffer {
  return Buffer.from([5, rep, 0, 1, 0, 0, 0, 0, 0, 0]);
}

const REPLY_OK = socksReply(SOCKS.REP.OK);

export function parseSocksGreeting(b: Buffer): { ok: true; methods: number[]; length: number } | Refusal | null {
  if (b.length < 2) return null;
  if (b[0] !== 5) return refusal('bad_request', 'not SOCKS5');
  const n = b[1]!;
  if (n === 0) return refusal('bad_request', 'no authentication methods');
  if (b.length < 2 + n) return null;
  return { ok: true, methods: [...b.subarray(2, 2 + n)], length: 2 + n };
}

export function parseSocksAuth(b: Buffer): { ok: true; username: string; password: string; length: number } | Refusal | null {
  if (b.length < 2) return null;
  if (b[0] !== 1) return refusal('bad_request', 'bad subnegotiation version');
  const ulen = b[1]!;
  if (b.length < 2 + ulen + 1) return null;
  const plen = b[2 + ulen]!;
  const total = 3 + ulen + plen;
  if (b.length < total) return null;
  return { ok: true, username: b.toString('utf8', 2, 2 + ulen), password: b.toString('utf8', 3 + ulen, total), length: total };
}

export function parseSocksRequest(b: Buffer): ({ ok: true; length: number } & HostPort) | Refusal | null {
  if (b.length < 4) return null;
  if (b[0] !== 5) return refusal('bad_request', 'bad request version');
  if (b[1] !== 1) return refusal('unsupported_command', 'only CONNECT is supported');
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
    const named = targetHost(b.toString('latin1', 5, 5 + len));
    if (!named) return refusal('bad_target', INVALID_TARGET_HOST_MESSAGE);
    host = named;
    off = 5 + len;
  } else if (atyp === 4) {
    if (b.length < 22) return null;
    const parts: string[] = [];
    for (let i = 0; i < 8; i++) parts.push(b.readUInt16BE(4 + i * 2).toString(16));
    host = parts.join(':');
    off = 20;
  } else {
    return refusal('unsupported_address', 'unsupported address type');
  }
  const port = b.readUInt16BE(off);
  if (port === 0) return refusal('forbidden', 'port 0');
  return { ok: true, host, port, length: off + 2 };
}

/** A parser that gives up once it would need more than MAX_MESSAGE_BYTES. */
function bounded<T>(parse: (b: Buffer) => T | Refusal | null): (b: Buffer) => T | Refusal | null {
  return (b) => parse(b) ?? (b.length > MAX_MESSAGE_BYTES ? refusal('too_large', 'handshake too long') : null);
}

const readGreeting = bounded(parseSocksGreeting);
const readAuth = bounded(parseSocksAuth);
const readRequest = bounded(parseSocksRequest);

/**
 * Greeting, login (answered before the client names its target), then the CONNECT request. A client
 * that offers username/password logs in with it; one that offers only "no authentication" (Chromium
 * and the tools built on it cannot send SOCKS5 credentials) is let in only from a password-less
 * address, and otherwise told that none of its methods is acceptable.
 */
export async function socks5Handshake<S extends { ok: true }>(reader: HandshakeReader, login: Login<S>): Promise<HandshakeResult<S>> {
  const { socket } = reader;
  const greeting = await reader.read(readGreeting);
  if (!greeting) return null;
  if (!greeting.ok) return { ...greeting, phase: 'greeting' };
  reader.skip(greeting.length);
  if (!greeting.methods.includes(USERNAME_PASSWORD_METHOD)) {
    if (!greeting.methods.includes(NO_AUTH_METHOD)) return refusal('no_method', 'client offers no username/password method', 'greeting');
    const session = await login(null);
    if (!session.ok) return refusal('no_method', `no credentials offered: ${session.message}`, 'greeting');
    if (socket.destroyed) return null;
    socket.write(SOCKS.NO_AUTH);
    return connectRequest(reader, session);
  }
  socket.write(SOCKS.USERPASS);

  const auth = await reader.read(readAuth);
  if (!auth) return null;
  if (!auth.ok) return { ...auth, phase: 'login' };
  reader.skip(auth.length);
  const session = await login({ username: auth.username, password: auth.password });
  if (!session.ok && !REFUSED_AT_REQUEST.has(session.kind)) return { ...session, phase: 'login' };
  if (socket.destroyed) return null;
  socket.write(SOCKS.AUTH_OK);
  return connectRequest(reader, session);
}

/** The CONNECT request; a login refused for a reason other than the credentials is answered here, with its reply code. */
async function connectRequest<S extends { ok: true }>(reader: HandshakeReader, session: S | Refusal): Promise<HandshakeResult<S>> {
  const request = await reader.read(readRequest);
  if (!request?.ok) return request;
  if (!session.ok) return session;
  reader.skip(request.length);
  const target = { host: request.host, port: request.port };
  return { ok: true, session, target, leftover: reader.rest(), established: REPLY_OK, requestedAt: Date.now() };
}
